/**
 * The last answers of a pure function of a string, for hot paths that see the same input again
 * and again (the first page's cursor, a browser's session cookie). Bounded: when full it starts
 * over rather than tracking use, which costs nothing per hit and keeps an attacker who floods it
 * with new inputs to one slow path per input, the same as without it.
 */
export class RecentAnswers<V> {
  private readonly answers = new Map<string, V>();

  constructor(private readonly max = 1024) {}

  get(input: string): V | undefined {
    return this.answers.get(input);
  }

  set(input: string, answer: V): void {
    if (this.answers.size >= this.max) this.answers.clear();
    this.answers.set(input, answer);
  }
}
