// No imports: test/transfer-grid-query.test.ts reads areas/transfer/gridQuery.ts, which imports this, under node16 resolution.

/**
 * The data API's filter operators (D12), the one list the dashboard's screens offer and parse:
 * the grid's filter bar, the export screen's conditions and the endpoint editor's default
 * filters. `api/types.ts` checks it against the operators the OpenAPI document names.
 */
export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'null'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
