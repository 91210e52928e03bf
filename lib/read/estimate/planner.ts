// The planner's figure for a set of rows: EXPLAIN's estimate from table statistics, no count.
import { rows, type Queryable } from '../../db/query.js'
import { compileEstimate, type FilteredRows } from '../../sql/read.js'

export async function plannedRows (db: Queryable, filtered: FilteredRows): Promise<number> {
  const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(db, compileEstimate(filtered))
  return explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0
}
