// One process's readers of the change log. The hub keeps one position, the tail: every change
// before it has been read by every follower that has joined. Each time the log may have grown (a
// NOTIFY, or the poll), it reads the next window once, and each distinct question among its
// followers (a cohort: equal statements, ./evaluate.ts questionKey) is asked once for that
// window, whatever the number of followers who ask it. A follower that starts behind the tail
// (a resumed token) catches up on its own first, one window at a time, then joins its cohort.
import type { Queryable } from '../db/query.js'
import { problem } from '../problems.js'
import { announceChanges, horizonOf, prunedMark, readWindow } from './log.js'
import type { ChangeEvent, Window } from './evaluate.js'
import { compare, type Position, type Resume } from './position.js'

/** A caller's question of one resource's changes; followers with equal keys share one reading. */
export interface Question {
  readonly key: string
  readonly resource: string
  read (window: Window): Promise<ChangeEvent[]>
}

/** Someone following the log: told each window's events (none, often) and where they now stand. */
export interface Follower {
  readonly question: Question
  position: Position
  deliver (events: readonly ChangeEvent[], end: Position): void
  /** The hub can no longer follow for them (pruned past them, or the database failed): they end. */
  fail (error: unknown): void
}

interface Cohort {
  readonly question: Question
  readonly followers: Set<Follower>
}

export interface HubOptions {
  /** How often the log is read when nothing woke the hub. */
  readonly pollMs: number
  /** Reported, not thrown: a failed read of the tail is tried again at the next wake. */
  readonly onError: (error: unknown) => void
}

/** Past the horizon, committed changes wait for an older transaction to end: read again this soon, then less often. */
const FIRST_RETRY_MS = 10
/** The least time from one NOTIFY of this process's writes to the next: other processes hear of a write at most this much later. */
const ANNOUNCE_EVERY_MS = 10

export function changesExpired (): never {
  throw problem('changes-expired', 'The change log no longer holds every change after this token (it is older than the retention): list the records again and follow from now, without a token.')
}

export class ChangeHub {
  readonly #db: Queryable
  readonly #options: HubOptions
  readonly #cohorts = new Map<string, Cohort>()
  #tail: Position | undefined
  #stepping: Promise<void> | undefined
  #again = false
  #retryMs = FIRST_RETRY_MS
  #retry: NodeJS.Timeout | undefined
  #poll: NodeJS.Timeout | undefined
  #waiters: Array<() => void> = []
  #closed = false
  #windows = 0
  #reads = 0
  #following = 0
  #announcing = false
  #announceAgain = false
  #announceTimer: NodeJS.Timeout | undefined

  constructor (db: Queryable, options: HubOptions) {
    this.#db = db
    this.#options = options
  }

  /** Followers in cohorts now: counted as they join and leave, for every pipeline write asks (`written`). */
  get following (): number {
    return this.#following
  }

  /** Cohorts now: the statements each window costs. */
  get cohorts (): number {
    return this.#cohorts.size
  }

  /** Windows of the log past the tail that changed a followed resource, and the cohorts' statements that read them, since the start. */
  get counts (): { readonly windows: number, readonly reads: number } {
    return { windows: this.#windows, reads: this.#reads }
  }

  /** Where a reader starts that wants the changes from now on. */
  async now (): Promise<Position> {
    if (this.#tail === undefined || this.following === 0) await this.wake()
    return this.#tail ?? await horizonOf(this.#db)
  }

  /** A 410 changes-expired problem where pruning has passed `position`: a reader there may have lost changes. */
  async resumable (position: Position): Promise<void> {
    if (compare(await prunedMark(this.#db), position) > 0) changesExpired()
  }

  /**
   * A write of the pipeline has committed: this process reads the log at once, and every process
   * hears of it by one NOTIFY sent after the commit, never in the write's transaction.
   */
  written (): void {
    if (this.#closed) return
    if (this.following > 0 || this.#waiters.length > 0) void this.wake()
    this.#announce()
  }

  /**
   * One NOTIFY for the writes that commit while one is on its way, and at most one each
   * ANNOUNCE_EVERY_MS: a NOTIFY is a transaction of its own, with a transaction id and a commit
   * that waits for the disk; one each round trip went with every fourth or fifth logged write at
   * 20 connections (docs/decisions.md, "The logged write").
   */
  #announce (): void {
    if (this.#announcing) {
      this.#announceAgain = true
      return
    }
    this.#announcing = true
    const next = performance.now() + ANNOUNCE_EVERY_MS
    const again = (): void => {
      this.#announcing = false
      this.#announceTimer = undefined
      if (!this.#announceAgain || this.#closed) return
      this.#announceAgain = false
      this.#announce()
    }
    announceChanges(this.#db).catch(this.#options.onError).finally(() => {
      const wait = next - performance.now()
      if (!this.#announceAgain || wait <= 0) return again()
      this.#announceTimer = setTimeout(again, wait)
    })
  }

  /** Reads the log now (or once more after the read under way): a NOTIFY arrived, or the poll. */
  async wake (): Promise<void> {
    if (this.#closed) return
    if (this.#stepping !== undefined) {
      this.#again = true
      await this.#stepping
      return
    }
    this.#stepping = this.#run()
    try {
      await this.#stepping
    } finally {
      this.#stepping = undefined
    }
  }

  async #run (): Promise<void> {
    do {
      this.#again = false
      try {
        await this.#step()
      } catch (err) {
        this.#options.onError(err)
      }
    } while (this.#again && !this.#closed)
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }

  async #step (): Promise<void> {
    if (this.#tail === undefined) {
      this.#tail = await horizonOf(this.#db)
      return
    }
    const from = this.#tail
    const window = await readWindow(this.#db, from)
    if (window.waiting) this.#retrySoon()
    else this.#retryMs = FIRST_RETRY_MS
    if (compare(window.pruned, from) > 0) {
      // Pruned past the tail (a transaction stayed open longer than the retention): every follower
      // may have lost changes, so each ends, and its token says so (410) when it resumes.
      for (const cohort of this.#cohorts.values()) for (const follower of cohort.followers) this.#fail(follower, problem('changes-expired', 'Changes were pruned before this stream could read them.'))
    }
    if (compare(window.end, from) === 0) return
    const asked = [...this.#cohorts.values()].filter((c) => window.resources.has(c.question.resource))
    if (asked.length > 0) this.#windows++
    this.#reads += asked.length
    const answers = await Promise.all(asked.map(async (cohort) => await cohort.question.read({ from, to: window.end }).catch((err: unknown) => err as Error)))
    const events = new Map(asked.map((cohort, i) => [cohort, answers[i]!]))
    for (const cohort of this.#cohorts.values()) {
      const answer = events.get(cohort) ?? []
      for (const follower of cohort.followers) {
        if (answer instanceof Error) this.#fail(follower, answer)
        else {
          follower.position = window.end
          follower.deliver(answer, window.end)
        }
      }
    }
    this.#tail = window.end
    if (window.more) this.#again = true
  }

  #retrySoon (): void {
    if (this.#retry !== undefined) return
    this.#retry = setTimeout(() => {
      this.#retry = undefined
      void this.wake()
    }, this.#retryMs)
    this.#retry.unref()
    this.#retryMs = Math.min(this.#retryMs * 2, this.#options.pollMs)
  }

  #fail (follower: Follower, error: unknown): void {
    this.leave(follower)
    follower.fail(error)
  }

  /** Resolves after the next read of the log. */
  async #nextRead (): Promise<void> {
    await new Promise<void>((resolve) => { this.#waiters.push(resolve) })
  }

  /**
   * Brings `follower` from where it resumes to the tail (the rest of its token's window first,
   * where it names one), one window at a time, then into its cohort; resolves once it is in (or
   * gone: `isGone`). A position before what pruning has reached is 410 changes-expired.
   */
  async follow (follower: Follower, resume: Resume, isGone: () => boolean): Promise<void> {
    this.#startPolling()
    follower.position = resume.position
    if (resume.within !== undefined) {
      const { from, rank } = resume.within
      const events = await follower.question.read({ from, to: resume.position, after: rank })
      if (isGone()) return
      follower.deliver(events, resume.position)
    }
    if (this.#tail === undefined || this.following === 0) await this.wake()
    for (;;) {
      if (isGone() || this.#closed) return
      if (this.#stepping !== undefined) {
        await this.#stepping
        continue
      }
      const tail = this.#tail!
      const order = compare(follower.position, tail)
      if (order === 0) {
        this.#join(follower)
        return
      }
      if (order > 0) {
        // A token from a process further on: wait for this one's tail to pass it.
        const read = this.#nextRead()
        void this.wake()
        await read
        continue
      }
      const window = await readWindow(this.#db, follower.position, follower.question.resource, tail)
      if (compare(window.pruned, follower.position) > 0) changesExpired()
      const events = window.resources.size === 0 ? [] : await follower.question.read({ from: follower.position, to: window.end })
      if (isGone()) return
      follower.position = window.end
      follower.deliver(events, window.end)
    }
  }

  #join (follower: Follower): void {
    const key = follower.question.key
    let cohort = this.#cohorts.get(key)
    if (cohort === undefined) {
      cohort = { question: follower.question, followers: new Set() }
      this.#cohorts.set(key, cohort)
    }
    if (cohort.followers.has(follower)) return
    cohort.followers.add(follower)
    this.#following++
  }

  leave (follower: Follower): void {
    const key = follower.question.key
    const cohort = this.#cohorts.get(key)
    if (cohort === undefined || !cohort.followers.delete(follower)) return
    this.#following--
    if (cohort.followers.size === 0) this.#cohorts.delete(key)
  }

  #startPolling (): void {
    if (this.#poll !== undefined || this.#closed) return
    this.#poll = setInterval(() => {
      if (this.following > 0) void this.wake()
    }, this.#options.pollMs)
    this.#poll.unref()
  }

  close (): void {
    this.#closed = true
    clearInterval(this.#poll)
    clearTimeout(this.#retry)
    clearTimeout(this.#announceTimer)
    for (const cohort of this.#cohorts.values()) for (const follower of cohort.followers) follower.fail(problem('service-unavailable', 'The server is shutting down: resume with the last event id.'))
    this.#cohorts.clear()
    this.#following = 0
  }
}
