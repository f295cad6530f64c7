// The people's vocabulary (decisions §17): the four roles, least first,
// with what each may do, for the views of users and keys.

/** @type {Record<string, string>} */
export const ROLES = {
  viewer: "viewer: reads",
  operator: "operator: also runs networks and sends commands",
  editor: "editor: also changes configurations",
  admin: "admin: also users and the audit trail",
};

/**
 * The roles up to `role`, least first (a key's role is at most its user's).
 * @param {string} role
 */
export function rolesUpTo(role) {
  const names = Object.keys(ROLES);
  return names.slice(0, names.indexOf(role) + 1);
}
