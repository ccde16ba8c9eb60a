/** Foods: the catalogue, the person's food history, and custom foods. */
import type { McpTool } from '../tool.ts';

export const foodTools: McpTool[] = [
  {
    name: 'food_barcode_lookup',
    title: 'Look up a food by barcode',
    operation: 'foodsByBarcode',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_catalogue_detail',
    title: 'Read a food with all nutrients',
    operation: 'food',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_catalogue_full_match',
    title: 'Find a food with full nutrient data',
    operation: 'foodFullMatch',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_catalogue_recommendations',
    title: 'Recommend foods',
    operation: 'foodRecommendations',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_catalogue_search',
    title: 'Search foods',
    operation: 'foodSearch',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_history_list',
    title: 'List foods I logged',
    operation: 'foodHistory',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'food_custom_create',
    title: 'Create a custom food',
    operation: 'createCustomFood',
    scopes: ['health:nutrition:write'],
    kind: 'write',
  },
];
