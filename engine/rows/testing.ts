/** Builders for hand-written tables in the row code's unit tests (the schema builders, and a key that is not generated). */
import { col } from '../schema/testing.js';

export { col, tbl } from '../schema/testing.js';

export const idCol = () => col('id', 'integer', { nativeType: 'integer', nullable: false });
