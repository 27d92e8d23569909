// Shared by the page tests: starts `web/serve.mjs` as `npm start` does and
// finds Debian's Chromium for playwright-core.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SERVE = fileURLToPath(new URL("../web/serve.mjs", import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface Served {
  server: ChildProcess;
  url: string;
  /** Everything the server printed to stdout until its URL line. */
  said: string;
}

/** The URL the page server prints (any host: a test checks which). */
export const PRINTED_URL = /http:\/\/[^\s/]+:\d+\//;

/** Starts the page server (`script`, web/serve.mjs unless told) with `args` and `env`; resolves once it prints its URL. */
export function serve(args: string[], env: Record<string, string | undefined> = {}, script = SERVE): Promise<Served> {
  const server = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PORT: undefined, ...env } });
  let said = "";
  let errors = "";
  server.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise<Served>((resolve, reject) => {
    server.stdout!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      const match = PRINTED_URL.exec(said);
      if (match) resolve({ server, url: match[0], said });
    });
    server.on("exit", (code) => reject(new Error(`the page server exited with ${code}: ${errors}`)));
  });
}
