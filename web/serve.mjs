// `npm start`: serves the page and the library's browser build on localhost.
// Static files only (no server-side part): web/, dist/ and the wasm loader.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".map": "application/json", ".json": "application/json", ".svg": "image/svg+xml" };
/** URL prefixes served, and the folders they map to. */
const ROUTES = [
  ["/dist/", "dist/"],
  ["/web/", "web/"],
  ["/node_modules/@assemblyscript/loader/", "node_modules/@assemblyscript/loader/"],
];

const argPort = process.argv.indexOf("--port");
const port = Number(argPort >= 0 ? process.argv[argPort + 1] : (process.env.PORT ?? 5173));

const server = createServer(async (request, response) => {
  const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
  const route = path === "/" ? ["/", "web/index.html"] : ROUTES.find(([prefix]) => path.startsWith(prefix));
  const file = route && normalize(path === "/" ? route[1] : join(route[1], path.slice(route[0].length)));
  // Only files inside the route's own folder: "..", encoded or not, cannot step out of it.
  if (!file || !file.startsWith(path === "/" ? route[1] : normalize(route[1]))) {
    response.writeHead(404).end("not found");
    return;
  }
  try {
    const body = await readFile(join(root, file));
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
  } catch {
    response.writeHead(404).end("not found");
  }
});

server.listen(port, "127.0.0.1", () => {
  const { port: actual } = server.address();
  console.log(`bloomkit page: http://localhost:${actual}/`);
});
