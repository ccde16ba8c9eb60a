/** Newsletter, privacy requests, waitlist and product interests (spec: "Newsletter, privacy, waitlist, product interests"). */
import type { RestRoute } from '../route.ts';

export const outreachRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/newsletter/subscribe',
    operation: 'SubscribeNewsletter',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'GET',
    path: '/api/newsletter/subscribers',
    operation: 'ListNewsletterSubscribers',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/privacy/requests',
    operation: 'RequestPrivacy',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/waitlist/join',
    operation: 'JoinWaitlist',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/waitlist/confirm',
    operation: 'ConfirmWaitlist',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'GET',
    path: '/api/product-interests',
    operation: 'ListProductInterests',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/product-interests',
    operation: 'RecordProductInterest',
    body: 'input',
    tag: 'outreach',
  },
];
