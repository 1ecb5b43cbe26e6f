// The one reading of `Authorization: Bearer <key>` (5.1): the scheme in any case, one or more spaces,
// then the key. Authentication, the faults, the journal and the dashboard read it the same way.
const BEARER = /^Bearer +(\S+)\s*$/i;

/** The key of a Bearer credential, or undefined when the header is absent or not Bearer. */
export const bearerToken = (authorization: string | undefined): string | undefined => BEARER.exec(authorization ?? '')?.[1];
