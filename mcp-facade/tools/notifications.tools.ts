/** Notifications: preferences, the inbox, reminders, the tone catalogue and a test push. */
import type { McpTool } from '../tool.ts';

export const notificationTools: McpTool[] = [
  {
    name: 'notifications_prefs_read',
    title: 'Read notification preferences',
    operation: 'notificationPrefs',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'set_notifications_prefs',
    title: 'Set notification preferences',
    operation: 'setNotificationPrefs',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_inbox_read',
    title: 'Read the notification inbox',
    operation: 'notificationInbox',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'notifications_inbox_mark_read',
    title: 'Mark notifications read',
    operation: 'markNotificationsRead',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_item_open',
    title: 'Open a notification',
    operation: 'openNotification',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_reminder_add',
    title: 'Add a reminder',
    operation: 'addNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'write',
  },
  {
    name: 'notifications_reminder_toggle',
    title: 'Turn a reminder on or off',
    operation: 'toggleNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_reminder_delete',
    title: 'Delete a reminder',
    operation: 'deleteNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'deletes',
  },
  {
    name: 'notifications_tones_read',
    title: 'Read notification tones',
    operation: 'notificationTones',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'notifications_test_send',
    title: 'Send a test notification',
    operation: 'sendTestNotification',
    scopes: ['notifications:write'],
    kind: 'write',
  },
];
