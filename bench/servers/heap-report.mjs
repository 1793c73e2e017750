// Preloaded into a server process (node --expose-gc --import ./heap-report.mjs …): on SIGUSR2
// it collects garbage and prints one line `heap-report {json of process.memoryUsage()}` on stdout.
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  process.stdout.write(`heap-report ${JSON.stringify(process.memoryUsage())}\n`);
});
