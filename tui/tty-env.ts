// The environment checktop's libraries read once, when they load: settled by
// cli.ts before it loads them.

export function settleEnvironment(): void {
  // Ink decides that it runs "in CI" when CI or CONTINUOUS_INTEGRATION is
  // set, and then draws nothing until exit. checktop only runs on a terminal
  // (checktop.tsx checks), so a CI variable inherited by an interactive shell
  // (some dev containers set it) must not blank the screen.
  if (process.stdout.isTTY && process.stdin.isTTY) {
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
  }
  // React picks its build from NODE_ENV: unset, the development build, which
  // checks and times every render, a good share of checktop's busy time on a
  // big project. An operator who sets NODE_ENV keeps what they set.
  process.env.NODE_ENV ??= 'production';
}
