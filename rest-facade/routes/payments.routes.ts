/** Subscriptions and payments (spec: "Subscriptions and payments"), Stripe behind the fields. */
import type { RestRoute } from '../route.ts';

export const paymentRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/subscriptions/create-subscription',
    operation: 'CreateSubscription',
    variablesIn: 'query',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/subscriptions/verify',
    operation: 'VerifySubscription',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/subscriptions/webhook',
    operation: 'HandleStripeWebhook',
    body: 'body',
    responder: 'raw',
    headers: { 'stripe-signature': 'signature' },
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/setup-intent',
    operation: 'CreateSetupIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/auth-intent',
    operation: 'CreateAuthIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/cancel-intent',
    operation: 'CancelIntent',
    body: 'input',
    tag: 'payments',
  },
  {
    method: 'GET',
    path: '/api/payments/config',
    operation: 'GetPaymentsConfig',
    tag: 'payments',
  },
  {
    method: 'POST',
    path: '/api/payments/kit-intent',
    operation: 'CreateKitIntent',
    body: 'input',
    tag: 'payments',
  },
];
