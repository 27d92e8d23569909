// The package as a user gets it: packed with `npm pack`, unpacked, and
// installed from the tarball into a fresh app made from test/fixtures/consumer.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("..", import.meta.url));

export interface Installed {
  /** A temporary folder holding all the rest; remove it when done. */
  work: string;
  /** The tarball's files, as paths inside the package. */
  files: string[];
  /** Where the tarball was unpacked: its files are under `${unpacked}/package/`. */
  unpacked: string;
  /** The app, with node_modules/bloomkit installed from the tarball. */
  app: string;
}

/** Runs npm quietly (warnings go to stderr), returning stdout. */
export function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Packs this repository (dist/ must be built: `npm test` builds first, so
 * prepare is not run again) and installs the tarball into a new app, offline
 * with an empty npm cache: a dependency the package named would fail to install.
 */
export function packAndInstall(prefix: string): Installed {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const [info] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], REPO));
  const tarball = join(work, info.filename);
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
  const app = join(work, "app");
  cpSync(join(REPO, "test", "fixtures", "consumer"), app, { recursive: true });
  npm(["install", "--offline", "--cache", join(work, "npm-cache"), tarball], app);
  return { work, files: info.files.map((file: { path: string }) => file.path), unpacked, app };
}
