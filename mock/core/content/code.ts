// One fenced code block in a named language, indented as that language is: what a chat UI must
// highlight, keep monospaced and let the reader copy. Asked at length, a sentence introduces a
// longer block.
import { piece, pieces, type Piece } from './piece.js';
import { begin, type Profile } from './profile.js';

interface Language {
  intro: Piece;
  open: Piece;
  /** Pieces of the block, separated by a blank line, each at most once: a small one makes an
   * ordinary answer; asked at length, as many as fit. */
  body: readonly Piece[];
}

const CLOSE = piece('```');

const language = (name: string, title: string, body: string[]): Language => ({
  intro: piece(`Here is a sketch in ${title}:`),
  open: piece(`\`\`\`${name}`),
  body: pieces(body),
});

const LANGUAGES: readonly Language[] = [
  language('python', 'Python', [
    'def square(x):\n    return x * x',
    'def greet(name):\n    return f"Hello, {name}!"',
    'def mean(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)',
    'def chunks(items, size):\n    for start in range(0, len(items), size):\n        yield items[start:start + size]',
    'class Counter:\n    def __init__(self):\n        self.count = 0\n\n    def tick(self):\n        self.count += 1\n        return self.count',
    'def retry(call, attempts=3):\n    for attempt in range(attempts):\n        try:\n            return call()\n        except OSError:\n            if attempt == attempts - 1:\n                raise',
    'def slugify(text):\n    words = text.lower().split()\n    return "-".join(words)',
    'def read_lines(path):\n    with open(path, encoding="utf-8") as f:\n        return [line.rstrip() for line in f]',
    'def fizzbuzz(n):\n    for i in range(1, n + 1):\n        if i % 15 == 0:\n            print("FizzBuzz")\n        elif i % 3 == 0:\n            print("Fizz")\n        else:\n            print(i)',
  ]),
  language('typescript', 'TypeScript', [
    'const double = (n: number) => n * 2;',
    'interface User {\n  id: number;\n  name: string;\n}',
    'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}',
    'function sum(values: number[]): number {\n  let total = 0;\n  for (const v of values) {\n    total += v;\n  }\n  return total;\n}',
    'type Result<T> =\n  | { ok: true; value: T }\n  | { ok: false; error: string };',
    'class Queue<T> {\n  private items: T[] = [];\n\n  push(item: T): void {\n    this.items.push(item);\n  }\n\n  shift(): T | undefined {\n    return this.items.shift();\n  }\n}',
    'export const sleep = (ms: number) =>\n  new Promise<void>((resolve) => setTimeout(resolve, ms));',
    'async function fetchJson(url: string): Promise<unknown> {\n  const res = await fetch(url);\n  if (!res.ok) {\n    throw new Error(`HTTP ${res.status}`);\n  }\n  return res.json();\n}',
  ]),
  language('go', 'Go', [
    'func add(a, b int) int {\n\treturn a + b\n}',
    'type Point struct {\n\tX, Y float64\n}',
    'func main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println("tick", i)\n\t}\n}',
    'func reverse(s string) string {\n\tr := []rune(s)\n\tfor i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {\n\t\tr[i], r[j] = r[j], r[i]\n\t}\n\treturn string(r)\n}',
    'func (p Point) Dist() float64 {\n\treturn math.Sqrt(p.X*p.X + p.Y*p.Y)\n}',
    'func countWords(text string) map[string]int {\n\tcounts := make(map[string]int)\n\tfor _, w := range strings.Fields(text) {\n\t\tcounts[w]++\n\t}\n\treturn counts\n}',
    'func max(values []int) int {\n\tbest := values[0]\n\tfor _, v := range values[1:] {\n\t\tif v > best {\n\t\t\tbest = v\n\t\t}\n\t}\n\treturn best\n}',
  ]),
  language('rust', 'Rust', [
    'fn square(x: i64) -> i64 {\n    x * x\n}',
    'struct Point {\n    x: f64,\n    y: f64,\n}',
    'impl Point {\n    fn dist(&self) -> f64 {\n        (self.x * self.x + self.y * self.y).sqrt()\n    }\n}',
    'fn fib(n: u32) -> u64 {\n    match n {\n        0 => 0,\n        1 => 1,\n        _ => fib(n - 1) + fib(n - 2),\n    }\n}',
    'fn main() {\n    let words = vec!["alpha", "beta"];\n    for (i, w) in words.iter().enumerate() {\n        println!("{i}: {w}");\n    }\n}',
    "fn parse(line: &str) -> Option<(String, u32)> {\n    let (name, age) = line.split_once(',')?;\n    Some((name.trim().to_string(), age.trim().parse().ok()?))\n}",
  ]),
];

export const code: Profile = {
  name: 'code',
  write(rand, long, lead) {
    const lang = LANGUAGES[Math.floor(rand() * LANGUAGES.length)];
    const reply = begin(rand, long, lead, [24, 31]);
    if (long) reply.add(lang.intro, '\n\n');
    reply.add(lang.open, '\n\n');
    // The closing fence is kept room for: the block always ends, unless max_tokens cuts it.
    reply.budget -= CLOSE.size;
    let sep: '\n' | '\n\n' = '\n';
    const start = Math.floor(rand() * lang.body.length);
    for (let i = 0; i < lang.body.length && (long || sep === '\n'); i++) {
      const b = lang.body[(start + i) % lang.body.length];
      if (!reply.fits(b)) continue;
      reply.add(b, sep);
      sep = '\n\n';
    }
    reply.budget += CLOSE.size;
    return reply.add(CLOSE, '\n').tokens;
  },
};
