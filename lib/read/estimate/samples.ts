// Estimates from a sample of the caller's own rows. A list whose filter value is new on every
// request (`id > N`, `customer_id = 123`) would count the caller's matching rows up to the cap each
// time. Once the same rows (resource, show_deleted, caller) have paid for COUNTS_BEFORE_SAMPLING
// such counts that reached the cap, a random sample of them is taken in the background, and a
// later filter over the same fields is tested against it in JS: the share it keeps, times the
// rows the caller may see. The sample is drawn from the caller's visible rows only, so the
// estimate, like the count, depends on nothing they cannot see. A filter that keeps fewer than
// MIN_MATCHES sampled rows, or that JS cannot evaluate (./filter-evaluator.ts), is counted.
import { BoundedCache } from '../../cache.js'
import { rows, type Queryable } from '../../db/query.js'
import { narrowed } from '../../plan/read.js'
import type { ListPlan } from '../../plan/types.js'
import { compileSample } from '../../sql/read.js'
import { sampleMatcher, type SampleColumns, type SampleMatcher, type SampleValue } from './filter-evaluator.js'
import { plannedRows } from './planner.js'

const SAMPLE_ROWS = 1_000
/** Counts at the cap for the same rows before a sample is taken (and again after it expires). */
const COUNTS_BEFORE_SAMPLING = 32
/** Fewer sampled matches than this are too few to scale up (a relative error above ~20 %). */
const MIN_MATCHES = 25
/** A sample is drawn from this many of the caller's rows at most: what one costs is bounded. */
const VISIBLE_CAP = 1_000_000
const SAMPLE_TTL_MS = 5 * 60_000
/** Samples and sampling counters kept; a sample of one field is ~25 KB. */
const MAX_ENTRIES = 128

interface Sample {
  readonly values: SampleColumns
  readonly size: number
  /** The rows the caller may see (at least, when VISIBLE_CAP was reached). */
  readonly visible: number
  readonly at: number
}

interface Entry {
  sample: Sample | undefined
  counts: number
  sampling: boolean
}

export class RowSamples {
  readonly #entries = new BoundedCache<Entry>(MAX_ENTRIES)

  /** The list's filtered rows estimated from a fresh sample of the caller's rows, or undefined: count them. */
  estimate (plan: ListPlan, now = Date.now()): number | undefined {
    if (plan.filter === undefined) return undefined
    const matcher = sampleMatcher(plan.filter, now)
    if (matcher === undefined) return undefined
    const sample = this.#entries.get(keyOf(plan, matcher))?.sample
    if (sample === undefined || now - sample.at > SAMPLE_TTL_MS) return undefined
    const matched = matcher.count(sample.values, sample.size)
    return matched < MIN_MATCHES ? undefined : Math.round(sample.visible * matched / sample.size)
  }

  /**
   * A count of the list's rows reached the cap: after enough of them for the same rows, a sample
   * is taken on `db` in the background. A sample that fails leaves the lists counting.
   */
  countedToCap (plan: ListPlan, db: Queryable, now = Date.now()): void {
    if (plan.filter === undefined) return
    const matcher = sampleMatcher(plan.filter, now)
    if (matcher === undefined) return
    const key = keyOf(plan, matcher)
    let entry = this.#entries.get(key)
    if (entry === undefined) {
      entry = { sample: undefined, counts: 0, sampling: false }
      this.#entries.set(key, entry)
    }
    if (entry.sampling || ++entry.counts < COUNTS_BEFORE_SAMPLING) return
    entry.sampling = true
    entry.counts = 0
    const taken = entry
    void this.#take(plan, matcher, db).then((sample) => { taken.sample = sample }, () => { taken.sample = undefined })
      .finally(() => { taken.sampling = false })
  }

  async #take (plan: ListPlan, matcher: SampleMatcher, db: Queryable): Promise<Sample> {
    const found = await rows<Record<string, SampleValue>>(db, compileSample(plan, matcher.fields, matcher.kinds, SAMPLE_ROWS, VISIBLE_CAP))
    const values = matcher.fields.map((_, i) => found.map((row) => row[`__s${i}`] ?? null))
    let visible = found.length === 0 ? 0 : Number(found[0]!.__visible)
    // Past the cap, a caller who sees every row may have the planner's figure for the table.
    if (visible >= VISIBLE_CAP && !narrowed(plan.model, plan.scope)) {
      visible = Math.max(visible, await plannedRows(db, { model: plan.model, scope: plan.scope, filter: undefined }))
    }
    return { values, size: found.length, visible, at: Date.now() }
  }
}

/** The rows the caller may see (resource, show_deleted, the caller where narrowed) and the fields sampled. */
function keyOf (plan: ListPlan, matcher: SampleMatcher): string {
  let key = `${plan.model.name}\0${plan.scope.showDeleted ? 'deleted' : 'live'}\0${plan.narrowedTo}`
  for (const field of matcher.fields) key += `\0${field.name}`
  return key
}
