// A stand-in for a person's browser ($BROWSER): fetch the authorization URL,
// following redirects except the last one, the redirect to switchboard's loopback
// listener (127.0.0.1 / localhost), which it then requests, as a browser would.
const start = process.argv[process.argv.length - 1];
const loopback = (u) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(u).hostname);
let url = start;
for (let hop = 0; hop < 10; hop++) {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) {
    console.error(`browser: ${url} answered ${response.status} without a redirect`);
    process.exit(1);
  }
  const next = new URL(location, url).toString();
  if (loopback(next) && new URL(next).pathname === '/callback') {
    const done = await fetch(next);
    process.exit(done.ok ? 0 : 1);
  }
  url = next;
}
console.error('browser: too many redirects');
process.exit(1);
