/**
 * Clickjacking defence for the pages this server hands to browsers (the REST docs page, GraphiQL,
 * the emailed-link and consent pages): no other site may show them in a frame. Browsers with CSP
 * level 2 read `frame-ancestors`; older ones `X-Frame-Options`. A page that sends its own
 * Content-Security-Policy puts FRAME_ANCESTORS_NONE into it.
 */

/** The CSP directive that forbids every framing ancestor. */
export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

/** The headers of a page no site may frame; `csp` is the page's own policy, if it has one. */
export function noFramingHeaders(csp: string = FRAME_ANCESTORS_NONE): Record<string, string> {
  return { 'content-security-policy': csp, 'x-frame-options': 'DENY' };
}
