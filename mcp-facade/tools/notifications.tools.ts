/** Notifications: preferences, the inbox, reminders, the tone catalogue and a test push. */
import type { McpTool } from '../tool.ts';

export const notificationTools: McpTool[] = [
  {
    name: 'notifications_prefs_read',
    title: 'Read notification preferences',
    operation: 'ReadNotificationPrefs',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'set_notifications_prefs',
    title: 'Set notification preferences',
    operation: 'SetNotificationPrefs',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_inbox_read',
    title: 'Read the notification inbox',
    operation: 'ListNotificationInbox',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'notifications_inbox_mark_read',
    title: 'Mark notifications read',
    operation: 'MarkNotificationsRead',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_item_open',
    title: 'Open a notification',
    operation: 'OpenNotification',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_reminder_add',
    title: 'Add a reminder',
    operation: 'AddNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'write',
  },
  {
    name: 'notifications_reminder_toggle',
    title: 'Turn a reminder on or off',
    operation: 'ToggleNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'notifications_reminder_delete',
    title: 'Delete a reminder',
    operation: 'DeleteNotificationReminder',
    scopes: ['notifications:write'],
    kind: 'deletes',
  },
  {
    name: 'notifications_tones_read',
    title: 'Read notification tones',
    operation: 'ListNotificationTones',
    scopes: ['notifications:read'],
    kind: 'read',
  },
  {
    name: 'notifications_test_send',
    title: 'Send a test notification',
    operation: 'SendTestNotification',
    scopes: ['notifications:write'],
    kind: 'write',
  },
];
