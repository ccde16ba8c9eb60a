/** Newsletter, privacy requests, waitlist and product interests (spec: "Newsletter, privacy, waitlist, product interests"). */
import type { RestRoute } from '../route.ts';

export const outreachRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/newsletter/subscribe',
    operation: 'subscribeNewsletter',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'GET',
    path: '/api/newsletter/subscribers',
    operation: 'newsletterSubscribers',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/privacy/requests',
    operation: 'requestPrivacy',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/waitlist/join',
    operation: 'joinWaitlist',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/waitlist/confirm',
    operation: 'confirmWaitlist',
    body: 'input',
    tag: 'outreach',
  },
  {
    method: 'GET',
    path: '/api/product-interests',
    operation: 'productInterests',
    tag: 'outreach',
  },
  {
    method: 'POST',
    path: '/api/product-interests',
    operation: 'recordProductInterest',
    body: 'input',
    tag: 'outreach',
  },
];
