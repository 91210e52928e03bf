// The change log's table (lib/changes/log.ts makes and reads it), here so that a write's statement
// can insert its log row (./write.ts, `logged`) without lib/sql reaching up into lib/changes.
import { sql } from './sql.js'

export const CHANGE_LOG = sql`"tablegate_changes"."log"`
