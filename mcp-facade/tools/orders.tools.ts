/** Orders: the catalogue, the person's orders and paying them, product waitlists. */
import type { McpTool } from '../tool.ts';

export const orderTools: McpTool[] = [
  {
    name: 'orders_catalog_read',
    title: 'Read the product catalogue',
    operation: 'productCatalog',
    scopes: ['orders:read'],
    kind: 'read',
  },
  {
    name: 'orders_list_read',
    title: 'List my orders',
    operation: 'orders',
    scopes: ['orders:read'],
    kind: 'read',
  },
  {
    name: 'orders_order_read',
    title: 'Read one order',
    operation: 'order',
    scopes: ['orders:read'],
    kind: 'read',
  },
  {
    name: 'orders_waitlist_list',
    title: 'List my waitlist places',
    operation: 'waitlistPlaces',
    scopes: ['orders:read'],
    kind: 'read',
  },
  {
    name: 'orders_order_create',
    title: 'Place an order',
    operation: 'createOrder',
    scopes: ['orders:pay'],
    kind: 'takes a payment',
  },
  {
    name: 'orders_order_pay',
    title: 'Pay an order',
    operation: 'payOrder',
    scopes: ['orders:pay'],
    kind: 'takes a payment',
  },
  {
    name: 'orders_waitlist_join',
    title: 'Join a product waitlist',
    operation: 'joinProductWaitlist',
    scopes: ['orders:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'orders_waitlist_leave',
    title: 'Leave a product waitlist',
    operation: 'leaveProductWaitlist',
    scopes: ['orders:write'],
    kind: 'deletes',
  },
];
