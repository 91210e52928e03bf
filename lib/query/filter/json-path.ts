// Comparisons at a key path inside a json field (`meta.size > 40`, `meta.color:*`). A json value
// has no declared type, so the literal's own form chooses the comparison: a bare number compares
// as a number, bare true and false as booleans, anything else (quoted text included) as a string.
import { isValueText } from '../../model/values.js'
import type { QueryIssue, Span } from '../span.js'
import type { Comparator, Value } from './ast.js'
import type { JsonTest, SqlComparator } from './checked.js'
import { hasWildcard, likePattern, literalText } from './literal.js'

const HINT = 'Compare a key with a string, a number, true or false: meta.color = "red", meta.size > 40, meta.gift = true, meta.color:*.'

/** The test a comparison at a json path makes, or the issue with it. */
export function jsonTest (op: Comparator, value: Value, at: Span): JsonTest | QueryIssue {
  if (value.kind === 'now') return { code: 'type-mismatch', message: 'now() compares only with a timestamp or date field, not inside json.', hint: HINT, span: value.span }
  const bare = !value.quoted
  if (bare && value.text === 'null') {
    if (op === '=' || op === '!=') return { kind: 'null', negated: op === '!=' }
    return { code: 'invalid-null', message: 'Only = and != compare with null.', hint: 'Write meta.key = null or meta.key != null.', span: at }
  }
  if (op === ':') return bare && value.text === '*' ? { kind: 'present' } : { kind: 'has', key: literalText(value) }
  const text = literalText(value)
  if (!isValueText({ type: 'string', columnType: undefined }, text)) {
    return { code: 'type-mismatch', message: 'The value is not valid text.', hint: 'Text cannot hold NUL characters or unpaired surrogates.', span: value.span }
  }
  if (bare && (text === 'true' || text === 'false')) {
    if (op !== '=' && op !== '!=') return { code: 'unsupported-operator', message: 'A json boolean compares with = or != only.', span: at }
    return { kind: 'compare', op: op === '!=' ? '<>' : op, type: 'boolean', value: text === 'true' }
  }
  const sqlOp = (op === '!=' ? '<>' : op) as SqlComparator
  if (bare && isValueText({ type: 'decimal', columnType: undefined }, text)) return { kind: 'compare', op: sqlOp, type: 'number', value: text }
  if (hasWildcard(value)) {
    if (op !== '=' && op !== '!=') return { code: 'unsupported-operator', message: 'A * wildcard works with = and != only.', hint: 'Escape a literal star as \\* inside quotes.', span: at }
    return { kind: 'like', pattern: likePattern(value, false), negated: op === '!=' }
  }
  return { kind: 'compare', op: sqlOp, type: 'string', value: text }
}
