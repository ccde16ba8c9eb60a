/**
 * Factories for access grants, through the real REST paths: a pending invitation, or an accepted
 * (active) grant, and the grantee's credential switched to view as the owner.
 */
import { expect } from 'vitest';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import type { SeededUser } from './users.ts';

/** The owner invites `email`; answers the pending grant's id. */
export async function seedInvitation(
  app: TestApp,
  owner: SeededUser,
  email: string,
): Promise<number> {
  const res = await rest(app, 'POST', '/api/auth/share', { token: owner.token, body: { email } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as number;
}

/** The owner invites the grantee, who accepts; answers the active grant's id. */
export async function seedActiveGrant(
  app: TestApp,
  owner: SeededUser,
  grantee: SeededUser,
): Promise<number> {
  const id = await seedInvitation(app, owner, grantee.user.email);
  const res = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, { token: grantee.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}

/** Switches `token` (login bearer or personal token) to view through the grant. */
export async function switchViewAs(
  app: TestApp,
  token: string,
  grantId: number | null,
): Promise<void> {
  const res = await rest(app, 'POST', '/api/v1/view-as', { token, body: { grant_id: grantId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
