/** Foods: the catalogue, the person's food history, and custom foods. */
import type { McpTool } from '../tool.ts';

export const foodTools: McpTool[] = [
  { name: 'food_barcode_lookup', operation: 'FoodsByBarcode', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_catalogue_detail', operation: 'GetFood', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_catalogue_full_match', operation: 'FoodFullMatch', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_catalogue_recommendations', operation: 'FoodRecommendations', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_catalogue_search', operation: 'SearchFoods', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_history_list', operation: 'FoodHistory', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'food_custom_create', operation: 'CreateCustomFood', scopes: ['health:nutrition:write'], kind: 'write' },
];
