// The bench's stand-in for the internet, in its own process: GET /big is 100 MB, anything else "ok".
import http from "node:http";

const SIZE = Number(process.env.BENCH_SIZE);
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);
const server = http.createServer((req, res) => {
  if (req.url !== "/big") return void res.end("ok");
  res.writeHead(200, { "content-length": String(SIZE) });
  let left = SIZE / CHUNK.length;
  const pump = () => {
    while (left > 0) {
      left--;
      if (!res.write(CHUNK)) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
process.on("disconnect", () => process.exit(0));
// CPU time on request, so the bench can report cost per byte, which machine load does not distort.
process.on("message", (m) => m === "cpu" && process.send?.({ cpu: process.cpuUsage() }));
