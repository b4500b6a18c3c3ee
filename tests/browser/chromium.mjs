// How the project's browser tests start Debian's chromium: playwright-core
// cannot download a browser here, and without the background-networking flags chromium keeps
// trying to reach hosts the machine cannot reach. Shared by the npm package's packaging test and
// the web demo's end-to-end tests; each passes a fresh profile folder as `userDataDir`.
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
