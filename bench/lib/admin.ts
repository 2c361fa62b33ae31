/** The first administrator of a bench's fresh instance, through the setup route, and its session cookie. */
export async function setUpAdmin(base: string): Promise<{ name: string; value: string; cookie: string }> {
  const setup = await fetch(`${base}/api/v1/setup/super-admin`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password', name: 'Bench' }),
  });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}: ${await setup.text()}`);
  const [name, value] = setup.headers.getSetCookie()[0]!.split(';')[0]!.split('=') as [string, string];
  return { name, value, cookie: `${name}=${value}` };
}
