// Rules of the document that no request from outside can verify, listed by `conformance list`.
export const UNTESTABLE = [
  { section: '5.4', rule: 'API access is granted by invitation during the pre-launch phase', why: 'a policy of key issuance, not a behaviour of the API' },
  { section: '1', rule: 'prices published on the website are estimates', why: 'a statement about the website, not the API' },
  { section: '5', rule: 'how keys are created, scoped, rotated or revoked', why: 'not shown in the document' },
];
