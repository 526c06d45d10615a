// Node options for the long-running `checkd serve` (the systemd unit, install.sh,
// `npm start` and the benchmarks start it with these; test/service checks they agree).
//
// The daemon's per-request garbage is small and short-lived, so small
// semi-spaces keep memory off it at no cost in throughput (docs/performance.md,
// "Why the code is as it is").
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
