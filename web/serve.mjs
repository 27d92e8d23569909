// `npm start`: serves the page and the library's browser build on 127.0.0.1.
// Static files only (no server-side part): web/ and dist/ (the library loads its wasm itself).
//   node web/serve.mjs [--port N | --port=N]     (or PORT=N; default 5173, vite's); npm start -- --port N
// A busy port is not an error: the next free one is taken, and said so.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

// A file path, not the URL's: a checkout in "My Projects" must not become "My%20Projects".
const root = fileURLToPath(new URL("..", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};
/** URL prefixes served, and the folders they map to. */
const ROUTES = [
  ["/dist/", "dist/"],
  ["/web/", "web/"],
];
/** Whole-path routes: the page itself, and the icon browsers ask for unprompted. */
const FILES = { "/": "web/index.html", "/favicon.ico": "web/favicon.svg" };
/**
 * Sent with every response. Cross-origin isolation (COOP + COEP) is what a
 * browser asks before it hands a page SharedArrayBuffer, which filters shared
 * with Web Workers need; every file here is same-origin, so nothing breaks.
 */
const HEADERS = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp", "cache-control": "no-store" };
/** This machine only, over IPv4. */
const HOST = "127.0.0.1";
const DEFAULT_PORT = 5173;
const HIGHEST_PORT = 65535;
/** Busy ports skipped before giving up. */
const PORT_TRIES = 20;

/** Exits with one plain line: 2 for a bad argument, 1 for anything else. */
function fail(message, code) {
  process.stderr.write(`bloomkit page: ${message}\n`);
  process.exit(code);
}

/** The text of --port N or --port=N, or undefined without one; any other argument is refused rather than ignored. */
function portArgument(args) {
  let text;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (text !== undefined && (arg === "--port" || arg.startsWith("--port="))) fail("--port is given twice", 2);
    if (arg === "--port") text = args[++i] ?? "";
    else if (arg.startsWith("--port=")) text = arg.slice("--port=".length);
    else fail(`unknown argument "${arg}": the only one is --port N (or --port=N)`, 2);
  }
  return text;
}

/**
 * The port `npm start --port 8080` meant, which npm keeps for itself when it
 * comes before `--`: it passes on only "8080" and sets npm_config_port=true,
 * or for --port=8080 passes nothing and sets npm_config_port=8080. Taken as
 * the user's --port rather than refused (or, for --port=8080, ignored for
 * 5173); undefined when npm kept none, or a --port reached the server.
 */
function npmsOwnPort(args) {
  const taken = process.env.npm_config_port;
  if (taken === undefined || args.some((arg) => arg === "--port" || arg.startsWith("--port="))) return undefined;
  // The "8080" npm passed on is that --port's value, not an argument of its own (requestedPort then reads no other).
  if (taken === "true" && args.length === 1 && /^\d+$/.test(args[0])) return args[0];
  return /^\d+$/.test(taken) && args.length === 0 ? taken : undefined;
}

/** The port asked for (--port N or --port=N, as npm may have kept it; else PORT, else 5173). */
function requestedPort() {
  const args = process.argv.slice(2);
  const fromNpm = npmsOwnPort(args);
  const given = fromNpm ?? portArgument(args);
  const [name, text] = given !== undefined ? ["--port", given] : ["PORT", process.env.PORT];
  if (text === undefined || text === "") return given !== undefined ? fail(`--port needs a number, e.g. --port ${DEFAULT_PORT}`, 2) : DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(port <= HIGHEST_PORT)) fail(`${name} must be a port number from 0 to ${HIGHEST_PORT} (0: any free port), got "${text}"`, 2);
  return port;
}

/** The file a URL path names, or undefined when it is outside the served folders. */
function fileFor(path) {
  if (Object.hasOwn(FILES, path)) return FILES[path];
  const route = ROUTES.find(([prefix]) => path.startsWith(prefix));
  if (!route) return undefined;
  const file = normalize(join(route[1], path.slice(route[0].length)));
  // Only files inside the route's own folder: "..", encoded or not, cannot step out of it.
  return file.startsWith(normalize(route[1])) ? file : undefined;
}

const server = createServer(async (request, response) => {
  let file;
  try {
    file = fileFor(decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname));
  } catch {
    file = undefined; // a malformed %-escape names no file
  }
  try {
    if (!file) throw new Error("outside the served folders");
    const body = await readFile(join(root, file));
    response.writeHead(200, { ...HEADERS, "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    response.writeHead(404, { ...HEADERS, "content-type": "text/plain; charset=utf-8" }).end("not found");
  }
});

const first = requestedPort();
let port = first;
server.on("error", (error) => {
  if (error.code === "EADDRINUSE" && port !== 0 && port < HIGHEST_PORT && port - first < PORT_TRIES) server.listen(++port, HOST);
  else if (error.code === "EADDRINUSE") fail(`ports ${first} to ${port} are all in use; choose another with PORT=…`, 1);
  else if (error.code === "EACCES") fail(`no permission to listen on port ${port}; choose one above 1023 with PORT=…`, 1);
  else fail(`cannot listen on port ${port}: ${error.message}`, 1);
});
server.once("listening", () => {
  const { port: actual } = server.address();
  if (port !== first) console.log(`bloomkit page: port ${first} is in use, so using ${actual}`);
  // The address listened on, not "localhost": where localhost is ::1 first, a browser could reach another server on this port.
  console.log(`bloomkit page: http://${HOST}:${actual}/`);
});
// A busy port is tried again on the next one (the error handler above).
server.listen(port, HOST);

/** How often, in ms, a server started by `npm start` checks that the command that started it is still there. */
const PARENT_CHECK_MS = 500;
// `npm start` runs this under `sh -c "node scripts/build-if-changed.mjs && node web/serve.mjs"`; stopping npm ends that shell
// but not this process, which went on holding the port (the next `npm start` moved to 5174). Under
// npm start, the server ends with the shell that started it, as it does on Ctrl-C. (npm sets
// npm_lifecycle_event for every script run under it: only "start" is this one.)
if (process.env.npm_lifecycle_event === "start") {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) {
      console.log("bloomkit page: npm start has ended, so the server stops");
      process.exit(0);
    }
  }, PARENT_CHECK_MS).unref();
}
