// dedup's growing filter for standard input of unknown length (cli/growing-filter.ts):
// layers of split-block or standard Bloom filters asked a piece's key hashes at a
// time. Its answers must be those of asking the layers one line at a time in input
// order (the scalable rule: a line any layer holds is a repeat, a new one goes to
// the newest layer, and a layer takes exactly its count), whatever the pieces are:
// the CLI's worker threads give larger pieces than one thread does, and the output
// must not change. Small first layers so that a test crosses many of them.
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { GrowingFilter, rateAfter } from "../cli/growing-filter.js";
import { rng } from "./helpers.js";

/** `count` crawler-like lines, about a third of them repeats of earlier ones. */
function crawl(count: number, seed: number): string[] {
  const random = rng(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = i > 0 && random() < 0.33 ? Math.floor(random() * i) : i;
    lines.push(`https://crawl.example/${id}/page.html`);
  }
  return lines;
}

/** The answers of asking the layers one line at a time: the rule, written out with the library's one-key calls. */
function oneByOne(type: "split-block" | "bloom", p: number, firstLayerLines: number, lines: string[]): { answers: number[]; held: number[] } {
  const layers: { filter: BloomFilter | SplitBlockBloomFilter; lines: number; held: number }[] = [];
  const addLayer = () => {
    const i = layers.length;
    const count = Math.ceil(firstLayerLines * 2 ** i);
    const rate = p * 0.15 * 0.85 ** i;
    layers.push({ filter: type === "split-block" ? SplitBlockBloomFilter.create(count, rate, { powerOfTwo: false }) : BloomFilter.create(count, rate), lines: count, held: 0 });
  };
  addLayer();
  const answers = lines.map((line) => {
    if (layers.some((layer) => layer.filter.has(line))) return 1;
    if (layers[layers.length - 1].held === layers[layers.length - 1].lines) addLayer();
    const newest = layers[layers.length - 1];
    newest.filter.add(line);
    newest.held++;
    return 0;
  });
  for (const layer of layers) layer.filter.dispose();
  return { answers, held: layers.map((layer) => layer.held) };
}

/** The answers of a GrowingFilter fed `lines` in pieces of the sizes `pieceLines` gives, hashed as the CLI hashes them. */
function inPieces(filter: GrowingFilter, lines: string[], pieceLines: () => number): number[] {
  const answers: number[] = [];
  for (let at = 0; at < lines.length; ) {
    const piece = lines.slice(at, at + pieceLines());
    at += piece.length;
    const { hashes, ends } = filter.first.hashLines(Buffer.from(piece.join("\n") + "\n"));
    expect(ends.length).toBe(piece.length);
    // An answers array longer than the piece, as the CLI lends: only the first answers are the piece's.
    const into = new Uint8Array(piece.length + 7).fill(9);
    const got = filter.testAndAddHashes(hashes, into);
    expect(got.length).toBe(piece.length);
    expect(Array.from(into.subarray(piece.length))).toEqual(new Array(7).fill(9));
    answers.push(...got);
  }
  return answers;
}

/** Checks that a GrowingFilter fed `lines` in pieces of each of the sizes given answers as oneByOne does, with the same lines in each layer; returns oneByOne's result. */
function answersOneByOneInPieces(type: "split-block" | "bloom", p: number, firstLayerLines: number, lines: string[], pieceSizes: (() => number)[]) {
  const reference = oneByOne(type, p, firstLayerLines, lines);
  for (const pieceLines of pieceSizes) {
    const filter = new GrowingFilter(type, p, firstLayerLines);
    try {
      expect(inPieces(filter, lines, pieceLines)).toEqual(reference.answers);
      expect(filter.layers.map((layer) => layer.held)).toEqual(reference.held);
    } finally {
      filter.dispose();
    }
  }
  return reference;
}

describe("GrowingFilter", () => {
  for (const type of ["split-block", "bloom"] as const) {
    it(`answers as the layers asked one line at a time, in pieces of any size (${type})`, () => {
      const lines = crawl(12_000, type === "bloom" ? 3 : 4);
      const p = 0.01;
      const random = rng(9);
      const reference = answersOneByOneInPieces(type, p, 100, lines, [() => 1, () => 1 + Math.floor(random() * 40), () => 1 + Math.floor(random() * 3_000), () => lines.length]);
      // Many layers were crossed, every full one holding exactly its count.
      expect(reference.held.length).toBeGreaterThanOrEqual(6);
      reference.held.slice(0, -1).forEach((held, i) => expect(held).toBe(Math.ceil(100 * 2 ** i)));
    });
  }

  it("answers as one line at a time where lines repeat in long runs across the layers' ends", () => {
    // Each line 1 to 300 times in a row: calls cut short by a layer's room meet runs of lines it already holds.
    const random = rng(21);
    const lines: string[] = [];
    for (let id = 0; lines.length < 40_000; id++) {
      const line = `https://crawl.example/run/${random() < 0.1 ? Math.floor(random() * (id + 1)) : id}`;
      for (let r = 1 + Math.floor(random() ** 3 * 300); r > 0; r--) lines.push(line);
    }
    const reference = answersOneByOneInPieces("split-block", 0.01, 37, lines, [() => 1 + Math.floor(random() * 500), () => 20_000, () => lines.length]);
    expect(reference.held.length).toBeGreaterThanOrEqual(4);
  });

  it("never calls a repeat new, and calls few new lines repeats (model: a Set of the lines seen)", () => {
    const lines = crawl(60_000, 5);
    const p = 0.01;
    const filter = new GrowingFilter("split-block", p, 500);
    const random = rng(11);
    try {
      const answers = inPieces(filter, lines, () => 1 + Math.floor(random() * 5_000));
      const seen = new Set<string>();
      let newLines = 0;
      let falsePositives = 0;
      lines.forEach((line, i) => {
        if (seen.has(line)) expect(answers[i], `line ${i} is a repeat`).toBe(1);
        else {
          newLines++;
          falsePositives += answers[i];
        }
        seen.add(line);
      });
      // The layers' rates add up to p, and each is below its rate until full: fewer than p of the new lines, with room for chance.
      expect(falsePositives).toBeLessThanOrEqual(p * newLines + 4 * Math.sqrt(p * newLines));
      expect(filter.layers.reduce((sum, layer) => sum + layer.held, 0)).toBe(newLines - falsePositives);
      // Each layer's rate at its count is about its share of p: p · 0.15 · 0.85^i.
      filter.layers.forEach((layer, i) => expect(rateAfter(layer.filter)(layer.lines)).toBeLessThan(1.3 * p * 0.15 * 0.85 ** i));
    } finally {
      filter.dispose();
    }
  });

  it("says in the command's words when a layer cannot be made (a rate past what k = 256 reaches)", () => {
    // Layer 0's rate, p · 0.15, is just reachable; layer 1's, 0.85 times it, is not.
    const filter = new GrowingFilter("bloom", 4.5e-77, 2);
    try {
      const { hashes } = filter.first.hashLines(Buffer.from("a\nb\nc\n"));
      expect(() => filter.testAndAddHashes(hashes, new Uint8Array(3))).toThrow(
        /^the filter that grows on a pipe cannot make its layer 2 \(for 4 more lines at a rate of 5\.74e-78\) after 2 distinct lines: .*needs k = 257 .*; give --n \(the lines to expect\) or --memory$/,
      );
    } finally {
      filter.dispose();
    }
  });

  it("takes an empty piece, and a piece of repeats only, without growing", () => {
    const filter = new GrowingFilter("split-block", 0.001, 10);
    try {
      expect(filter.testAndAddHashes(new BigUint64Array(0), new Uint8Array(0)).length).toBe(0);
      const piece = Buffer.from(Array.from({ length: 10 }, (_, i) => `key-${i}\n`).join(""));
      expect(Array.from(filter.testAndAddHashes(filter.first.hashLines(piece).hashes, new Uint8Array(10)))).toEqual(new Array(10).fill(0));
      expect(filter.layers.length).toBe(1);
      // Full, and asked only lines it holds: no new layer is made for them.
      expect(Array.from(filter.testAndAddHashes(filter.first.hashLines(piece).hashes, new Uint8Array(10)))).toEqual(new Array(10).fill(1));
      expect(filter.layers.length).toBe(1);
      // One new line starts the second layer.
      expect(Array.from(filter.testAndAddHashes(filter.first.hashLines(Buffer.from("key-10\n")).hashes, new Uint8Array(1)))).toEqual([0]);
      expect(filter.layers.map((layer) => layer.held)).toEqual([10, 1]);
    } finally {
      filter.dispose();
    }
  });
});
