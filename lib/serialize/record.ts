// Rows as read → the stored record that record checks and write hooks see: every field of the
// model the query fetched, by field name, none of the query's helper columns (`__deleted`, ...).
import type { ResourceModel } from '../model/types.js'
import type { Row } from './etag.js'

export type { Row }

export function storedRecord (model: ResourceModel, row: Row): Row {
  const record: Row = {}
  for (const f of model.fieldList) if (f.name in row) record[f.name] = row[f.name]
  return record
}
