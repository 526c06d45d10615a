// Imported first by cli.tsx, before Ink loads. Ink decides once, at import,
// that it runs "in CI" when CI or CONTINUOUS_INTEGRATION is set, and then
// draws nothing until exit. checktop only runs on a terminal (cli.tsx checks),
// so a CI variable inherited by an interactive shell (some dev containers set
// it) must not blank the screen.
if (process.stdout.isTTY && process.stdin.isTTY) {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
}

export {};
