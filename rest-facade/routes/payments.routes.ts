/** Subscriptions and payments (spec: "Subscriptions and payments"), Stripe behind the fields. */
import type { RestRoute } from '../route.ts';

export const paymentRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/subscriptions/create-subscription',
    operation: 'createSubscription',
    variablesIn: 'query',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/subscriptions/verify',
    operation: 'verifySubscription',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/subscriptions/webhook',
    operation: 'handleStripeWebhook',
    body: 'body',
    responder: 'raw',
    headers: { 'stripe-signature': 'signature' },
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/setup-intent',
    operation: 'createSetupIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/auth-intent',
    operation: 'createAuthIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/cancel-intent',
    operation: 'cancelIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'GET',
    path: '/api/payments/config',
    operation: 'paymentsConfig',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/kit-intent',
    operation: 'createKitIntent',
    body: 'input',
    tag: 'payments',
  },
];
