// One empty-message gRPC-Web call from the test itself (not through a page), to ask the
// server a yes/no question the page cannot be trusted to answer: is this token still
// accepted? Answers the call's grpc-status (0 OK, 16 UNAUTHENTICATED...).

/**
 * @param {string} base the gateway's URL
 * @param {string} method "package.Service/Method"
 * @param {string} token a bearer token
 */
export async function grpcWebStatus(base, method, token) {
  const r = await fetch(`${base}/${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/grpc-web+proto",
      "x-grpc-web": "1",
      authorization: `Bearer ${token}`,
    },
    body: new Uint8Array([0, 0, 0, 0, 0]),
  });
  const inHeaders = r.headers.get("grpc-status");
  if (inHeaders !== null) return Number(inHeaders);
  const body = new Uint8Array(await r.arrayBuffer());
  // Frames: flag (0x80 for trailers), 4-byte length, payload.
  for (let i = 0; i + 5 <= body.length; ) {
    const len = (body[i + 1] << 24) | (body[i + 2] << 16) | (body[i + 3] << 8) | body[i + 4];
    if (body[i] & 0x80) {
      const text = new TextDecoder().decode(body.subarray(i + 5, i + 5 + len));
      const m = /grpc-status:\s*(\d+)/i.exec(text);
      if (m) return Number(m[1]);
    }
    i += 5 + len;
  }
  throw new Error(`no grpc-status in the answer to ${method} (HTTP ${r.status})`);
}
