/** Admin notifications (spec: "Admin"): the sent list and a send to one person (admins only). */
import type { RestRoute } from '../route.ts';

export const adminNotificationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/admin/notifications',
    operation: 'adminNotifications',
    tag: 'admin',
  },
  {
    method: 'POST',
    path: '/api/admin/notifications/send',
    operation: 'sendAdminNotification',
    body: 'input',
    tag: 'admin',
  },
];
