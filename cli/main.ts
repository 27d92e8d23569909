#!/usr/bin/env node
// The `bloomkit` command: dispatches to a subcommand; errors are one line,
// exit 1 (2 for wrong usage), with no stack trace for user mistakes.
import { readFileSync } from "node:fs";
import { CliError, UsageError, optionHelp, parseArgs, type OptionSpec, type Parsed } from "./args.js";
import { runCleanups, watchSignals } from "./cleanup.js";
import { collectBeforeExit } from "./exit-deadlock.js";
import { clearProgress, printOut } from "./io.js";
import { failureInWords } from "./os-errors.js";
import { oneLine } from "./words.js";

/** What a command's module gives: its work, its options and its usage line. */
interface CommandCode {
  run(parsed: Parsed): Promise<void>;
  options: OptionSpec[];
  usage: string;
  /** For a command whose arguments may start with "-": where such an argument goes, said when it is refused as an unknown option. */
  dashed?: (arg: string) => string;
}

interface Command {
  /**
   * The command's module, imported only when it is the one asked for: the
   * others' code took memory every command paid for (calc's peak 76 MB
   * against 68 under Node 24, 64 against 62 under Node 20).
   */
  load(): Promise<CommandCode>;
  summary: string;
}

/** A command's `load`: its module imported, and what of it the command is. */
function lazily<M>(load: () => Promise<M>, pick: (module: M) => CommandCode): () => Promise<CommandCode> {
  return async () => pick(await load());
}

const filters = () => import("./filters.js");

const COMMANDS: Record<string, Command> = {
  dedup: {
    load: lazily(() => import("./dedup.js"), (m) => ({ run: m.dedup, options: m.dedupOptions, usage: m.dedupUsage })),
    summary: "keep the first occurrence of each line, in order (a crawler's URL de-dup)",
  },
  intersect: {
    load: lazily(() => import("./intersect.js"), (m) => ({ run: m.intersect, options: m.intersectOptions, usage: m.intersectUsage })),
    summary: "lines two files share, approximately or --exact, under a memory limit",
  },
  build: { load: lazily(filters, (m) => ({ run: m.build, options: m.buildOptions, usage: m.buildUsage })), summary: "build a filter file from lines" },
  query: { load: lazily(filters, (m) => ({ run: m.query, options: m.queryOptions, usage: m.queryUsage, dashed: m.queryDashed })), summary: "ask a filter file about keys" },
  info: {
    load: lazily(filters, (m) => ({ run: m.info, options: m.infoOptions, usage: m.infoUsage })),
    summary: "type, n, m, k, fill, estimated count and current FPR of a filter file",
  },
  merge: { load: lazily(filters, (m) => ({ run: m.merge, options: m.mergeOptions, usage: m.mergeUsage })), summary: "union of two Bloom filter files" },
  calc: {
    load: lazily(() => import("./calc.js"), (m) => ({ run: m.calc, options: m.calcOptions, usage: m.calcUsage })),
    summary: "the parameter calculator: any three of n, p, m, k",
  },
};

const MAIN_HELP = `bloomkit: Bloom filters and their relatives on the command line

usage: bloomkit <command> [options]   (bloomkit <command> --help for its options)
       bloomkit -v | --version

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join("\n")}

exit codes: 0 success, 1 error, 2 wrong usage
`;

/** `bloomkit help help` (or `help -h`): help's own usage, as `bloomkit help calc` prints calc's. */
const HELP_HELP = `usage: bloomkit help [COMMAND]

list the commands, or print COMMAND's usage and options (the same as bloomkit COMMAND --help)
`;

/** The installed package's version: package.json sits two folders above dist/cli/main.js. */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

/** The command whose --help a usage error points to (none before a command is known). */
let helpFor = "";

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // `bloomkit --help calc` is `bloomkit help calc`, as in git; the extra word was ignored and the list printed.
  if ((name === "--help" || name === "-h") && rest.length > 0) return main(["help", ...rest]);
  // `bloomkit help calc` is `bloomkit calc --help`.
  if (name === "help" && rest.length > 0) {
    // -h or --help asks for help's own usage, as it asks for any command's (parseArgs takes it anywhere).
    const helpAsked = rest.includes("-h") || rest.includes("--help");
    // An unknown word is the unknown-command error below; an option is not a command's name.
    if (!helpAsked && (rest.length > 1 || rest[0].startsWith("-"))) throw new UsageError(`help takes one command name (${Object.keys(COMMANDS).join(", ")}); got "${rest.join(" ")}"`);
    if (helpAsked || rest[0] === "help") {
      printOut(HELP_HELP);
      return 0;
    }
    return main([rest[0], "--help"]);
  }
  if (name === undefined) {
    // No command is wrong usage: the list goes where errors go, so that `bloomkit > out` leaves out empty.
    process.stderr.write(MAIN_HELP);
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    printOut(MAIN_HELP);
    return 0;
  }
  if (name === "--version" || name === "-v") {
    if (rest.length > 0) throw new UsageError(`${name} takes no arguments; got "${rest.join(" ")}"`);
    printOut(`bloomkit ${version()}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(", ")}`);
  helpFor = name;
  const code = await command.load();
  const parsed = parseArgs(rest, code.options, code.dashed);
  if (parsed.options.has("help")) {
    printOut(`usage: ${code.usage}\n\n${command.summary}\n${code.options.length ? `\noptions:\n${optionHelp(code.options)}\n` : ""}`);
    return 0;
  }
  await code.run(parsed);
  return 0;
}

watchSignals();
main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      runCleanups(); // a failed command leaves no temporary file behind, and every output as it was
      clearProgress(); // the message starts its own line on a terminal
      if (error instanceof UsageError) {
        process.stderr.write(`bloomkit: ${oneLine(error.message)} (see bloomkit ${helpFor ? `${helpFor} ` : ""}--help)\n`);
        process.exitCode = 2;
        return;
      }
      const known = error instanceof CliError || error instanceof RangeError || error instanceof TypeError;
      process.stderr.write(`bloomkit: ${oneLine(failureInWords(error))}\n`);
      if (!known && process.env.BLOOMKIT_DEBUG) process.stderr.write(`${(error as Error)?.stack}\n`);
      process.exitCode = 1;
    },
  )
  .finally(collectBeforeExit); // last, once outputs are committed or cleaned up
