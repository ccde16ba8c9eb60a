import { createReadStream } from 'node:fs';
import { parseAppleHealth } from '../src/domains/health/health.apple-parser.ts';
const c0 = process.cpuUsage(); const t = performance.now();
const r = await parseAppleHealth(createReadStream(process.argv[2]), { batchSize: 5000, onBatch: async () => {} });
const c = process.cpuUsage(c0);
console.log(r.seen, Math.round(performance.now() - t), 'ms wall', Math.round((c.user + c.system) / 1000), 'ms cpu', Math.round(process.memoryUsage().rss / 2 ** 20), 'MB rss');
