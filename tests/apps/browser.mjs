// Drives `switchboard app`'s page in a real headless Chromium (npm @sparticuz/chromium
// with puppeteer-core) and prints, as one JSON line, what it saw:
//   node browser.mjs URL SELECTOR [CLICK]
// It loads URL, records the sandbox proxy's Content-Security-Policy header, waits
// for the element SELECTOR (in any frame) to show something other than its
// placeholder, and, with CLICK, clicks that element and waits for SELECTOR to change.
// Packages are resolved from $SWITCHBOARD_APPS_MODULES (a node_modules' parent);
// $SWITCHBOARD_APPS_WAIT_MS bounds the first wait (30 s by default).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [url, selector, click] = process.argv.slice(2);
const base = process.env.SWITCHBOARD_APPS_MODULES;
if (!url || !selector || !base) {
  console.error("usage: SWITCHBOARD_APPS_MODULES=DIR node browser.mjs URL SELECTOR [CLICK]");
  process.exit(2);
}
const require = createRequire(base + "/");
const load = async (name) => (await import(pathToFileURL(require.resolve(name)).href)).default;
const chromium = await load("@sparticuz/chromium");
const puppeteer = await load("puppeteer-core");

const seen = { csp: null, host_csp: null, initial: null, after_click: null, console: [] };
const deadline = (ms) => Date.now() + ms;
const browser = await puppeteer.launch({
  args: chromium.args,
  executablePath: await chromium.executablePath(),
  headless: true,
});
try {
  const page = await browser.newPage();
  page.on("console", (m) => seen.console.push(m.text().slice(0, 300)));
  page.on("response", (r) => {
    const csp = r.headers()["content-security-policy"] ?? null;
    if (new URL(r.url()).pathname.startsWith("/p/")) seen.csp = csp;
    else if (r.url() === url) seen.host_csp = csp;
  });
  await page.goto(url, { waitUntil: "load", timeout: 30000 });
  const text = async () => {
    for (const frame of page.frames()) {
      try {
        const t = await frame.$eval(selector, (e) => e.textContent.trim());
        return { frame, text: t };
      } catch { /* not in this frame */ }
    }
    return null;
  };
  const waitFor = async (ok, ms) => {
    const end = deadline(ms);
    while (Date.now() < end) {
      const found = await text();
      if (found && ok(found.text)) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    return await text();
  };
  const wait = Number(process.env.SWITCHBOARD_APPS_WAIT_MS ?? 30000);
  const first = await waitFor((t) => t !== "" && !/^loading/i.test(t), wait);
  seen.initial = first ? first.text : null;
  if (click && first) {
    await first.frame.click(click);
    const after = await waitFor((t) => t !== seen.initial, 15000);
    seen.after_click = after ? after.text : null;
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
