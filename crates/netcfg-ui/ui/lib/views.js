// The table of views: each view's URL pattern (in the fragment), its module
// under views/, and its label in the navigation. The frame (app.js) routes
// with it; views link to each other with it.

/**
 * The views: a pattern of the fragment's path, the module under views/,
 * and the navigation's label (none for views reached from another); a
 * view of people says whom the navigation shows it to (`role`: admin only;
 * `signedIn`: a user signed in).
 * @type {{pattern: string, module: string, label?: string, role?: string, signedIn?: boolean}[]}
 */
export const VIEWS = [
  { pattern: "/", module: "nets", label: "Configurations" },
  { pattern: "/max-tags", module: "max_tags", label: "Maximum tags" },
  { pattern: "/host", module: "host", label: "Host" },
  { pattern: "/keys", module: "keys", label: "My API keys", signedIn: true },
  { pattern: "/users", module: "users", label: "Users", role: "admin" },
  { pattern: "/audit", module: "audit", label: "Audit", role: "admin" },
  { pattern: "/nets/:net", module: "overview", label: "Overview" },
  { pattern: "/nets/:net/devices", module: "devices", label: "Devices" },
  { pattern: "/nets/:net/floor", module: "floor", label: "Floor plan" },
  { pattern: "/nets/:net/commands", module: "commands", label: "Device commands" },
  { pattern: "/nets/:net/notifications", module: "notifications", label: "Notifications" },
  { pattern: "/nets/:net/alerts", module: "alerts", label: "Alert rules" },
  { pattern: "/nets/:net/schedules", module: "schedules", label: "Schedules" },
  { pattern: "/nets/:net/outputs", module: "outputs", label: "Outputs" },
  { pattern: "/nets/:net/recordings", module: "recordings", label: "Recordings" },
  { pattern: "/nets/:net/roles", module: "roles", label: "Roles" },
  { pattern: "/nets/:net/rf", module: "rf", label: "RF settings" },
  { pattern: "/nets/:net/streams", module: "streams", label: "Data streams" },
  { pattern: "/nets/:net/limits", module: "limits", label: "Position limits" },
  { pattern: "/nets/:net/settings", module: "settings", label: "Settings" },
  { pattern: "/nets/:net/pairs", module: "pairs", label: "Device pairs" },
  { pattern: "/nets/:net/group-image", module: "group_image", label: "Group image" },
  { pattern: "/nets/:net/calibration", module: "calibration", label: "Magnetometer calibration" },
  { pattern: "/nets/:net/network-mode", module: "network_mode", label: "Network mode" },
  { pattern: "/nets/:net/logs", module: "logs", label: "Logs" },
  { pattern: "/nets/:net/history", module: "history", label: "Change history" },
  { pattern: "/nets/:net/cache", module: "cache", label: "Cache manager" },
];
