/**
 * Cookies a GraphQL field sets (web sign-in, sign-out). Fields append serialized Set-Cookie
 * values to ctx.responseCookies; the REST facade and yoga copy them onto the HTTP answer, so the
 * rule lives behind the field whichever door the request came through.
 * NOTE: the session cookie is HttpOnly (scripts never see the token), SameSite=Lax, Secure when
 * the server is public over https; the CSRF cookie is readable so the web app can echo it in a header.
 */
import { serialize } from 'cookie';
import { SESSION_COOKIE } from './authenticate.ts';

export const CSRF_COOKIE = 'hdp_csrf';

export interface CookieSettings {
  secure: boolean;
}

/** Set-Cookie values that start a web session. */
export function sessionCookies(
  token: string,
  csrfToken: string,
  maxAgeSeconds: number,
  settings: CookieSettings,
): string[] {
  const base = {
    path: '/',
    sameSite: 'lax' as const,
    secure: settings.secure,
    maxAge: maxAgeSeconds,
  };
  return [
    serialize(SESSION_COOKIE, token, { ...base, httpOnly: true }),
    serialize(CSRF_COOKIE, csrfToken, { ...base, httpOnly: false }),
  ];
}

/** Set-Cookie values that end a web session in the browser. */
export function clearedSessionCookies(settings: CookieSettings): string[] {
  const base = {
    path: '/',
    sameSite: 'lax' as const,
    secure: settings.secure,
    maxAge: 0,
    expires: new Date(0),
  };
  return [
    serialize(SESSION_COOKIE, '', { ...base, httpOnly: true }),
    serialize(CSRF_COOKIE, '', base),
  ];
}
