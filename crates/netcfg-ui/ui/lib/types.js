// The API's payloads as JSDoc types, for the type checker only
// (crates/netcfg-ui/jsconfig.json): this module exports no value and
// nothing imports it at run time; views name its types with
// `import("../lib/types.js").Device`. Read from the 5.1 OpenAPI document
// (docs/openapi/5.1.json, written from the netcfg-model crate's types) and
// docs/api.md ("The envelope", "Errors clients can act on", "Live
// events"); a field added there is added here by hand.

// ---- the envelope ---------------------------------------------------------

/**
 * A classification level: 1 error, 2 warning, 3 information, 4 debug.
 * @typedef {1 | 2 | 3 | 4} Level
 */

/**
 * One problem of a request: `field` is the path of the field in the body
 * (`interfaces[0].x`), a path parameter, a form field, or "" for the
 * request as a whole.
 * @typedef {object} FieldProblem
 * @property {string} field
 * @property {string} problem
 */

/**
 * Every JSON answer: a sentence, its level (5.1), and for an error its
 * stable `code`, the `problems` of a 400 or 409 `inputs_conflict`, and the
 * `incident` of a 5xx. A success payload sits under one more key (see
 * `Envelope`).
 * @typedef {object} EnvelopeBase
 * @property {string} message
 * @property {Level} [Classification]
 * @property {string} [code]
 * @property {FieldProblem[]} [problems]
 * @property {string} [incident]
 */

/**
 * An answer whose payload is `T` under the key `K`: `Envelope<"devices",
 * Device[]>` is `{message, Classification, devices: Device[]}`.
 * @template {string} K
 * @template T
 * @typedef {EnvelopeBase & {[key in K]: T}} Envelope
 */

// ---- live events (GET /events, GET /nets/{net_name}/events) ---------------

/**
 * The `data` of each event type.
 * @typedef {object} EventData
 * @property {NotificationEvent} notification
 * @property {StateEvent} state
 * @property {DeviceEvent} device
 * @property {PositionEvent} position
 * @property {ChangeEvent} change
 * @property {ResyncEvent} resync
 * @property {ZoneEvent} zone
 */

// ---- resources, as docs/openapi/5.1.json declares them --------------------

/**
 * What a device answered to an action.
 * @typedef {{result: "done"} | {property_ids: number[], result: "property_list"} | {property_id: number, result: "property", value: number} | {attributes: DeviceAttributes, result: "attributes"}} ActionOutcome
 */

/**
 * One anchor's verdict in a survey.
 * @typedef {object} AnchorSurvey
 * @property {number} residual_mm  Distance from its configured position to where the ranges to the other anchors put it, mm.
 * @property {SerialNumber} serial_number  The anchor or seeder.
 * @property {PointMm | null} suggested  Where the ranges put a `bad` anchor; null otherwise.
 * @property {Verdict} verdict  `good` under 250 mm, `check` to 1,000 mm, `bad` above.
 */

/**
 * bit rate kbit/s
 * @typedef {110 | 850 | 6800} BitRate
 */

/**
 * What the network last reported about one device.
 * @typedef {object} CachedDevice
 * @property {DeviceAttributes | null} attributes  Its attributes, once read.
 * @property {Connectivity} connectivity  How it is connected.
 * @property {FirmwareImage[]} firmware_images  Its firmware images, once reported.
 * @property {DeviceActionName | null} last_action  The last action sent to it, if any.
 * @property {string | null} [unlocated]  For a tag the engine cannot locate, why; null while it is located.
 * @property {number} last_seen_ms  When it was last heard, in milliseconds since the Unix epoch.
 * @property {Position | null} position  Its last position, for tags.
 * @property {SerialNumber} serial_number  The device.
 * @property {DeviceStatus | null} status  Its last health report.
 * @property {Synchronisation} synchronisation  How it takes part in network time.
 */

/**
 * `change`: a resource of `net` changed through the API.
 * @typedef {object} ChangeEvent
 * @property {string} method  The request's method.
 * @property {string} net  The configuration.
 * @property {string} path  The request's path.
 * @property {string} resource  The resource: the route's path template (for example `/nets/{net_name}/devices/{device_key}`).
 */

/**
 * channel
 * @typedef {1 | 2 | 3 | 4 | 5 | 7 | 9} Channel
 */

/**
 * A device that did not carry out a command.
 * @typedef {object} CommandFailure
 * @property {string} message  Why it failed.
 * @property {SerialNumber} serial_number  The device.
 */

/**
 * Configuration name: 1 to 64 characters of A-Z a-z 0-9 . _ -, not starting with '.'.
 * @typedef {string} ConfigName
 */

/**
 * A network configuration.
 * @typedef {object} Configuration
 * @property {Instance} instance  The engine instance that runs it.
 * @property {ConfigName} name  The configuration's name, which is also its file's name.
 * @property {NetworkMode} network_mode  Its operating mode.
 * @property {RunState} state  Whether it is running.
 */

/**
 * The `status` of `POST /nets/{net_name}` (configuration actions).
 * @typedef {object} ConfigurationStatus
 * @property {string} action  The action: copy, delete, start or stop.
 * @property {ConfigName | null} [copy]  For a copy, the name of the new configuration.
 * @property {ConfigName} name  The configuration acted on.
 * @property {RunState} state  Its state after the action (`stopped` for a deleted one).
 */

/**
 * How a device is connected.
 * @typedef {"none" | "uwb" | "ethernet" | "uwb_and_ethernet"} Connectivity
 */

/**
 * The predicted 95% horizontal error over a grid (`GET /nets/{net_name}/coverage`).
 * Cell (`row`, `col`) is element `row × columns + col` of both arrays, centred at
 * (`x0 + col × resolution_mm`, `y0 + row × resolution_mm`).
 * @typedef {object} Coverage
 * @property {number[]} anchors_in_range  Per cell, the anchors within range of its centre (at height `z`).
 * @property {number} columns  Cells per row.
 * @property {(number | null)[]} error_mm  Per cell, the 95% horizontal error radius, mm; null where too few anchors are in range or their geometry cannot locate a tag.
 * @property {number} resolution_mm  The spacing of the cells' centres, mm.
 * @property {number} rows  Rows.
 * @property {number} x0  x of the first column's centres, mm.
 * @property {number} y0  y of the first row's centres, mm.
 */

/**
 * A data stream of a configuration.
 * @typedef {object} DataStream
 * @property {string} destination_ip  Where datagrams go: a unicast or multicast address.
 * @property {number} destination_port  The destination UDP port, 1 to 65535.
 * @property {number} id  The stream's id within the configuration.
 * @property {string} interface  The host address datagrams leave from; `0.0.0.0` for the system's choice.
 * @property {number} interface_port  The local UDP port; 0 for any.
 * @property {ItemName} name  Unique name within the configuration.
 * @property {number} time_to_live  Multicast time to live (hops), 1 to 255.
 */

/**
 * A known setting: its key, default value, rule and a one-line description.
 * @typedef {object} DefaultSetting
 * @property {string} allowed  The values it accepts, in words.
 * @property {SettingValue} default_value  The value a new configuration has.
 * @property {string} description  What it does, in one line.
 * @property {SettingKey} setting_key  The setting's key.
 * @property {SettingType} value_type  The type of its value.
 */

/**
 * A device of a configuration.
 * @typedef {object} Device
 * @property {boolean} disabled  A disabled device is kept in the configuration but not pushed to the network.
 * @property {DeviceId} id  The device's id within the configuration.
 * @property {Interface[]} interfaces  The device's radio interfaces.
 * @property {ItemName | null} name  A name for people; optional.
 * @property {SerialNumber} serial_number  The device's serial number, unique within the configuration.
 */

/**
 * The name of a device action.
 * @typedef {"soft_reset" | "hard_reset" | "set_led" | "clear_device_error" | "ship_mode" | "get_property_list" | "get_property" | "set_property" | "get_device_attributes"} DeviceActionName
 */

/**
 * The reply of one device to one action: the `status` payload of a device command.
 * @typedef {object} DeviceActionReply
 * @property {DeviceActionName} action  The action it was sent.
 * @property {ActionOutcome} outcome  What it answered.
 * @property {SerialNumber} serial_number  The device.
 */

/**
 * A device's fixed attributes.
 * @typedef {object} DeviceAttributes
 * @property {string} enclosure_colour  The colour of its enclosure.
 * @property {string} jurisdiction  The radio jurisdiction it is certified for (for example `FCC`, `ETSI`).
 * @property {NetworkTime} minimum_beacon_period  The shortest beacon period the device supports.
 * @property {string} sku  Its stock-keeping unit.
 */

/**
 * The `status` of a device command: each device's reply, and the devices that did not answer.
 * @typedef {object} DeviceCommandStatus
 * @property {CommandFailure[]} failures  The devices that failed, with why.
 * @property {DeviceActionReply[]} replies  The replies, in the order asked.
 */

/**
 * `device`: a device of `net` joined, was lost, or reported health.
 * @typedef {object} DeviceEvent
 * @property {Connectivity} connectivity  Its connectivity now.
 * @property {DeviceHappening} event  What happened.
 * @property {string} net  The configuration.
 * @property {SerialNumber} serial_number  The device.
 * @property {DeviceStatus | null} status  Its latest status report, if any.
 * @property {Synchronisation} synchronisation  Its synchronisation now.
 */

/**
 * What happened to a device (`device`).
 * @typedef {"joined" | "lost" | "health"} DeviceHappening
 */

/**
 * A device's integer id within its configuration.
 * @typedef {number} DeviceId
 */

/**
 * A pair of device interfaces. The 5.1 API names devices only (interface 0); the 5.0 paired-interface endpoints name interfaces too.
 * @typedef {object} DevicePair
 * @property {number} interface_1  The interface of the first device.
 * @property {number} interface_2  The interface of the second device.
 * @property {SerialNumber} serial_number_1  The first device.
 * @property {SerialNumber} serial_number_2  The second device.
 * @property {PairType} type  What the pair does.
 */

/**
 * A device's health.
 * @typedef {object} DeviceStatus
 * @property {number} battery_percent  Battery charge in percent; 255 for a device without a battery.
 * @property {number | null} minutes_remaining  Estimated minutes of battery left, when known.
 * @property {number} processor_use_percent  Processor use in percent.
 * @property {number} temperature_celsius  Temperature in degrees Celsius.
 */

/**
 * A firmware image installed on a device.
 * @typedef {object} FirmwareImage
 * @property {FirmwareImageType} image_type  Which image.
 * @property {string} sha1  Its SHA-1, 40 hexadecimal digits.
 * @property {string} version  Its version.
 */

/**
 * The kind of a firmware image on a device.
 * @typedef {"recovery" | "bootloader" | "firmware" | "almanac" | "application"} FirmwareImageType
 */

/**
 * The firmware image bundle that devices of a configuration are updated to.
 * @typedef {object} GroupImage
 * @property {string | null} path  The path of the image bundle on the host; `null` until one is set.
 */

/**
 * One change made to a configuration, as its history keeps it.
 * @typedef {object} HistoryEntry
 * @property {string | null} address  The client's address, when the change came over the network.
 * @property {number} id  The change's identifier: increasing within the configuration.
 * @property {string} method  The request's method (`POST`, `PUT`, `PATCH`, `DELETE`), empty for a local change.
 * @property {string} origin  Who made it: the name of the access token, `anonymous` when access control is off, `local` for a change made by a program that embeds the store rather than through the API.
 * @property {string} path  The request's path, empty for a local change.
 * @property {string} summary  One line: what the request was, and how many items it added, changed and removed.
 * @property {number} timestamp_ms  When it was made, in milliseconds since the Unix epoch.
 */

/**
 * A network interface of the host (`GET /network-info`).
 * @typedef {object} HostNetworkInterface
 * @property {string[]} addresses  Its addresses.
 * @property {string | null} mac  Its hardware address, `aa:bb:cc:dd:ee:ff`, when it has one.
 * @property {string} name  The operating system's name for it (`eth0`, `lo`).
 * @property {boolean} up  Whether it is up.
 */

/**
 * The engine instance: the absolute path of the serial port of the network interface device, `sim` or `sim:<scenario>` for the built-in simulator, or an empty string for the server's default.
 * @typedef {string} Instance
 */

/**
 * A radio interface of a device. Coordinates are in millimetres.
 * @typedef {object} Interface
 * @property {number} identifier  The interface's identifier on its device, 0 to 255 (usually 0).
 * @property {RoleId} role_id  The role of this interface.
 * @property {number | null} [x]  East coordinate in mm; required for anchors and seeders.
 * @property {number | null} [y]  North coordinate in mm; required for anchors and seeders.
 * @property {number | null} [z]  Height in mm; required for anchors and seeders.
 */

/**
 * A name: 1 to 64 characters, no control characters, no white space at either end.
 * @typedef {string} ItemName
 */

/**
 * How bright a device's LED is.
 * @typedef {"Off" | "Very Dim" | "Dim" | "Bright"} LedBrightness
 */

/**
 * What stops the network from carrying more tags.
 * @typedef {"airtime" | "maximum_tag_period" | "seeders"} LimitingFactor
 */

/**
 * Log file name: A-Z a-z 0-9 . _ -, not starting with '.'.
 * @typedef {string} LogFileName
 */

/**
 * A magnetometer's hard-iron calibration: three signed 16-bit offsets.
 * @typedef {object} MagnetometerCalibration
 * @property {SerialNumber} serial_number  The device.
 * @property {number} x_offset  Offset on the x axis.
 * @property {number} y_offset  Offset on the y axis.
 * @property {number} z_offset  Offset on the z axis.
 */

/**
 * How many tags a network carries, and the airtime breakdown behind the figure. Durations are in microseconds, rounded to the nanosecond; "per tag period" means per `effective_tag_period`.
 * @typedef {object} MaxTagsResult
 * @property {number} airtime_left_for_tags_us  Airtime left for tags per tag period (never negative).
 * @property {number} beacon_bytes  Bytes a tag sends per beacon on average: the overhead of each frame plus its sensor and user data, amortised over their periods.
 * @property {NetworkTime} effective_tag_period  The period tags beacon at: the tag period rounded down to a whole number of `maximum_tag_period` cycles, in network time units.
 * @property {number} exchange_airtime_us  Airtime of one location: the beacon (MultiTime), or the beacon as a poll plus the anchors' responses, the final frame and the turnarounds between them (MultiRange).
 * @property {number} frame_airtime_us  Airtime of a tag's beacon: preamble, SFD, PHY header, data and parity.
 * @property {number} frames_per_beacon  Frames a beacon needs on average (more than 1 when its data does not fit one frame).
 * @property {number} guard_time_us  The guard time each tag slot adds (see `docs/max-tags.md`).
 * @property {LimitingFactor} limiting_factor  What stops it from carrying more.
 * @property {number} locations_per_second  Locations per second the network produces at `maximum_tags`.
 * @property {number} maximum_tags  The largest number of tags the network carries at the tag period.
 * @property {NetworkMode} network_mode  The mode the figure is for: a location is one beacon (MultiTime) or one ranging exchange (MultiRange).
 * @property {number} seeder_airtime_us  Airtime the seeders' timing packets and their guards take per tag period.
 * @property {number} seeder_frame_airtime_us  Airtime of one seeder timing packet.
 * @property {number} slot_us  The length of one tag's slot: exchange, guard and window.
 * @property {number} tag_period_us  `effective_tag_period` in microseconds.
 * @property {number} window_us  The downlink window each tag slot keeps.
 */

/**
 * How the network locates tags.
 * @typedef {"multitime" | "multirange"} NetworkMode
 */

/**
 * A network mode as `GET /network_modes` lists it.
 * @typedef {object} NetworkModeInfo
 * @property {string} description  What it does.
 * @property {NetworkMode} network_mode  The mode.
 * @property {number} typical_locations_per_second  The public capacity figure for one coverage area.
 */

/**
 * The `network_mode` payload of `PATCH /nets/{net_name}/network_mode`.
 * @typedef {object} NetworkModeStatus
 * @property {NetworkMode} network_mode  The configuration's mode now.
 */

/**
 * A duration in network time units of 1/975,000 s: 975 = 1 ms, 97,500 = 100 ms (10 Hz).
 * @typedef {number} NetworkTime
 */

/**
 * A notification raised by a configuration's network.
 * @typedef {object} Notification
 * @property {number} identifier  The notification's identifier within the configuration.
 * @property {Level} level  How serious it is.
 * @property {string} message  What happened.
 * @property {boolean} read  Whether a user has read it.
 * @property {SerialNumber | null} serial_number  The device it concerns, if any.
 * @property {number} timestamp_ms  When it was raised, in milliseconds since the Unix epoch.
 */

/**
 * `notification`: a new notification of `net`.
 * @typedef {object} NotificationEvent
 * @property {number} identifier  The notification's identifier within the configuration.
 * @property {Level} level  How serious it is.
 * @property {string} message  What happened.
 * @property {string} net  The configuration whose network raised it.
 * @property {boolean} read  Whether a user has read it.
 * @property {SerialNumber | null} serial_number  The device it concerns, if any.
 * @property {number} timestamp_ms  When it was raised, in milliseconds since the Unix epoch.
 */

/**
 * An output of a configuration (decisions §14): where its live events go,
 * an MQTT broker or a webhook. Its credentials are write-only: only
 * whether each is set.
 * @typedef {object} Output
 * @property {number} batch_ms  Positions gathered this long go as one message; 0: one message per position.
 * @property {string | null} ca_file  mqtts and https: a PEM file of the certificate authorities to trust; none: the system's.
 * @property {boolean} enabled  Whether it runs while the configuration runs.
 * @property {OutputEventKind[]} events  The events it carries.
 * @property {number} max_rate_hz  The most positions a second per tag; 0: every position.
 * @property {ItemName} name  Unique name within the configuration.
 * @property {boolean} password_set  MQTT: whether a password is kept for it.
 * @property {0 | 1 | null} qos  MQTT: the QoS of positions and device events; null for a webhook.
 * @property {boolean} secret_set  Webhook: whether its signing secret is kept.
 * @property {string | null} topic_prefix  MQTT: the topics' first levels (`{net_name}` is the configuration's name); null for a webhook.
 * @property {string} url  `mqtt://host:port`, `mqtts://host:port`, or a webhook's http or https URL.
 * @property {boolean} username_set  MQTT: whether a username is kept for it.
 */

/**
 * A live event an output may carry.
 * @typedef {"position" | "zone" | "notification" | "device" | "state"} OutputEventKind
 */

/**
 * How an output fares (`GET .../outputs/{output_name}/status`).
 * @typedef {object} OutputStatus
 * @property {boolean} connected  Connected to its broker (MQTT), or its last delivery succeeded (webhook).
 * @property {number} dropped  Positions dropped because the queue was full.
 * @property {number} dropped_events  Other events dropped because the queue was full of them.
 * @property {number} rejected  Webhook deliveries the web service refused (4xx, 3xx; not retried).
 * @property {string | null} last_error  The last error since it last delivered, if any.
 * @property {number} queued  Messages waiting in its queue.
 * @property {boolean} running  Whether it runs now (its configuration runs and it is enabled).
 * @property {number} sent  Messages delivered since the configuration started (a batch counts once).
 */

/**
 * Whether an installed component is usable.
 * @typedef {"installed" | "missing"} PackageState
 */

/**
 * A component of the manager and its version (`GET /packages`).
 * @typedef {object} PackageStatus
 * @property {string} name  The component's name.
 * @property {PackageState} state  Whether it is usable.
 * @property {string | null} version  Its version, when installed.
 */

/**
 * What a pair of interfaces does.
 * @typedef {"twr" | "blacklist"} PairType
 */

/**
 * A position in mm.
 * @typedef {object} PointMm
 * @property {number} x  East, mm.
 * @property {number} y  North, mm.
 * @property {number} z  Height, mm.
 */

/**
 * A located position of a device.
 * @typedef {object} Position
 * @property {number} anchors_used  How many anchors the solution used.
 * @property {number} quality  Quality, 0 (worst) to 10,000 (best).
 * @property {number} x  East, mm.
 * @property {number} y  North, mm.
 * @property {number} z  Height, mm.
 */

/**
 * One tag's position in a `position` batch.
 * @typedef {object} PositionEntry
 * @property {number} error_mm  The solver's own 95% horizontal error estimate, mm.
 * @property {number} network_time  When the network solved it, in units of 1/975,000 s.
 * @property {number} quality  Quality, 0 (worst) to 10,000 (best).
 * @property {SerialNumber} serial_number  The tag.
 * @property {number} x  East, mm.
 * @property {number} y  North, mm.
 * @property {number} z  Height, mm.
 */

/**
 * `position`: the newest position of each tag of `net` that moved since this client's previous batch.
 * @typedef {object} PositionEvent
 * @property {string} net  The configuration.
 * @property {PositionEntry[]} positions  Each tag's newest position.
 */

/**
 * A bounding box, in millimetres: positions outside it are limited to it.
 * @typedef {object} PositionLimit
 * @property {number} id  The limit's id within the configuration.
 * @property {number} max_x  Largest x (mm).
 * @property {number} max_y  Largest y (mm).
 * @property {number} max_z  Largest z (mm).
 * @property {number} min_x  Smallest x (mm).
 * @property {number} min_y  Smallest y (mm).
 * @property {number} min_z  Smallest z (mm).
 * @property {ItemName} name  Unique name within the configuration.
 */

/**
 * Preamble code; it must suit the channel and PRF (see domain.md).
 * @typedef {number} PreambleCode
 */

/**
 * preamble length symbols
 * @typedef {64 | 128 | 256 | 512 | 1024 | 1536 | 2048 | 4096} PreambleLength
 */

/**
 * pulse repetition frequency MHz
 * @typedef {16 | 64} Prf
 */

/**
 * A recording of a configuration's data streams (decisions §15): every
 * datagram they sent, in a pcap file.
 * @typedef {object} Recording
 * @property {boolean} active  Whether it is still recording.
 * @property {number} datagrams  Datagrams it holds.
 * @property {number} duration_ms  From its first datagram to its last, milliseconds.
 * @property {RecordingEnd} [ended]  Why it ended; absent while it records.
 * @property {string} name  Its name, unique within its configuration.
 * @property {number} size  Bytes of its capture file.
 * @property {number} started_ms  When its first datagram was sent (or, before any, when it started), ms since the Unix epoch.
 */

/**
 * Why a recording ended.
 * @typedef {"duration" | "stopped" | "network_stopped" | "recording_limit" | "total_limit" | "disk" | "interrupted" | "uploaded"} RecordingEnd
 */

/**
 * Where a running replay stands (`GET /nets/{net_name}/replay`).
 * @typedef {object} ReplayState
 * @property {number} datagrams  Datagrams played since the start.
 * @property {number} duration_ms  The recording's length, milliseconds.
 * @property {boolean} finished  Whether it played to its end (and does not loop).
 * @property {boolean} loop  Whether it starts again at its end.
 * @property {number} loops  Times it started again from the beginning.
 * @property {ConfigName} net  The configuration the recording belongs to.
 * @property {boolean} paused  Whether it is paused.
 * @property {number} position_ms  Where it is, milliseconds from the recording's first datagram.
 * @property {string} recording  The recording played.
 * @property {number} speed  How fast it plays, times the recording's pace (0.1 to 50).
 */

/**
 * `resync`: this client fell behind and missed events; reload the state.
 * @typedef {object} ResyncEvent
 * @property {string} reason  Why.
 */

/**
 * A named set of radio settings of a configuration.
 * @typedef {object} RfSetting
 * @property {BitRate} bit_rate  Data bit rate.
 * @property {Channel} channel  UWB channel.
 * @property {ItemName} name  Unique name within the configuration; `default` always exists.
 * @property {PreambleCode} preamble_code  Preamble code, suited to channel and PRF.
 * @property {PreambleLength} preamble_length  Preamble length in symbols.
 * @property {Prf} prf  Pulse repetition frequency.
 */

/**
 * A role of a configuration: its timing and its sensors.
 * @typedef {object} Role
 * @property {SensorPeriod} accelerometer_period  Accelerometer report period.
 * @property {number} device_count  How many devices are planned for this role (the input of the maximum-tag check).
 * @property {SensorPeriod} gyroscope_period  Gyroscope report period.
 * @property {RoleId} id  The role's id.
 * @property {LedBrightness} led_brightness  LED brightness of the role's devices.
 * @property {SensorPeriod} magnetometer_period  Magnetometer report period.
 * @property {ItemName} name  Unique name within the configuration.
 * @property {NetworkTime} network_period  The beacon period of the role's devices (tags), or the tick period of seeders; 0 for roles that do not transmit periodically.
 * @property {SensorPeriod} pressure_period  Pressure report period.
 * @property {SensorPeriod} quaternion_period  Orientation quaternion report period.
 * @property {SensorPeriod} temperature_period  Temperature report period.
 * @property {NetworkTime} window_duration  The receive window kept open after each beacon for downlink commands (ours); 0 for none.
 */

/**
 * The id of a role. 0 to 4 are built in; custom roles get ids from 5.
 * @typedef {number} RoleId
 */

/**
 * Whether a configuration's network is running.
 * @typedef {"stopped" | "running"} RunState
 */

/**
 * 0 (off) or a period of at least 975 network time units (1 ms, units of 1/975,000 s).
 * @typedef {number} SensorPeriod
 */

/**
 * Serial number: XX:XX:XXXX in hexadecimal (byte, byte, 16 bits). Lower case and the 8-digit form without colons are accepted; responses use upper case with colons.
 * @typedef {string} SerialNumber
 */

/**
 * Setting key: 1 to 64 characters of A-Z a-z 0-9 . _ -.
 * @typedef {string} SettingKey
 */

/**
 * The type of a setting's value.
 * @typedef {"boolean" | "integer" | "number" | "string"} SettingType
 */

/**
 * The value of a setting: a JSON boolean, integer, number or string.
 * @typedef {boolean | number | string} SettingValue
 */

/**
 * What happened to a configuration (`state`).
 * @typedef {"created" | "deleted" | "renamed" | "started" | "stopped" | "link_down"} StateChange
 */

/**
 * `state`: a configuration was created, deleted, renamed, started or stopped, or its link went down.
 * @typedef {object} StateEvent
 * @property {string} net  The configuration (its name before a rename).
 * @property {string | null} [renamed_to]  The new name, for a rename.
 * @property {StateChange} state  What happened.
 */

/**
 * Two anchors' measured range against their configured distance.
 * @typedef {object} SurveyPair
 * @property {SerialNumber} a  One anchor.
 * @property {SerialNumber} b  The other.
 * @property {number} configured_mm  Their configured distance, mm.
 * @property {number} measured_mm  The range they measured (the mean of both directions' medians), mm.
 */

/**
 * A survey's result (`POST /nets/{net_name}/survey`, `GET` for the last one).
 * @typedef {object} SurveyReport
 * @property {AnchorSurvey[]} anchors  Every positioned anchor and seeder.
 * @property {SurveyPair[]} pairs  Every pair of anchors that heard each other.
 * @property {number} time_ms  When it was made, ms since the Unix epoch.
 */

/**
 * How a device takes part in network time.
 * @typedef {"none" | "tx" | "rx" | "tx_and_rx"} Synchronisation
 */

/**
 * A system setting of a configuration.
 * @typedef {object} SystemSetting
 * @property {SettingKey} setting_class  The class the setting belongs to (`system` for the configuration's own).
 * @property {number} setting_id  The instance of the class (0 for `system`).
 * @property {SettingKey} setting_key  The setting's key, unique within its class and id.
 * @property {SettingValue} value  The value.
 */

/**
 * One reference tag's fixes since the start, against its configured position (`GET /nets/{net_name}/accuracy`).
 * @typedef {object} TagAccuracy
 * @property {number} fixes  Positions solved.
 * @property {number} mean_error_mm  Mean horizontal error, mm.
 * @property {number} r95_mm  95th percentile of the horizontal error, mm.
 * @property {number} rms_mm  Root mean square of the horizontal error, mm.
 * @property {SerialNumber} serial_number  The reference tag.
 * @property {number} within_estimate  Share of fixes (0 to 1) whose horizontal error was within their own `error_mm`.
 */

/**
 * A device the network hears that the configuration does not hold.
 * @typedef {object} UnconfiguredDevice
 * @property {ConfigName | null} heard_by  The configuration whose network heard it, if any.
 * @property {number} last_seen_ms  When it was last heard, in milliseconds since the Unix epoch.
 * @property {SerialNumber} serial_number  The device's serial number.
 */

/**
 * What a survey says of an anchor's configured position.
 * @typedef {"good" | "check" | "bad"} Verdict
 */

/**
 * A zone of a configuration.
 * @typedef {object} Zone
 * @property {number} dwell_ms  How long a tag must stay inside before it enters, ms.
 * @property {number} hysteresis_mm  How far inside a tag must be to enter, and outside to leave, mm.
 * @property {ItemName} name  Unique name within the configuration.
 * @property {Record<string, any> | null} [on_enter]  The action sent to a tag that enters.
 * @property {Record<string, any> | null} [on_exit]  The action sent to a tag that leaves.
 * @property {ZonePolygon} polygon  Its outline.
 * @property {RoleId[]} roles  The roles it applies to; empty: every role.
 * @property {SerialNumber[]} tags  The tags it applies to; empty: every tag.
 * @property {number | null} [z_max]  The highest height inside, mm; none: no ceiling.
 * @property {number | null} [z_min]  The lowest height inside, mm; none: no floor.
 * @property {number} zone_id  The zone's number, given when it was added and kept through renames.
 */

/**
 * `zone`: a tag of `net` entered or left a zone (decisions §13). Never dropped the way positions are.
 * @typedef {object} ZoneEvent
 * @property {ZoneHappening} event  Entering or leaving.
 * @property {string} net  The configuration.
 * @property {number} network_time  The network time of that position, in units of 1/975,000 s; 0 when a change of the zone decided it.
 * @property {SerialNumber} serial_number  The tag.
 * @property {number} time_ms  When, in milliseconds since the Unix epoch.
 * @property {number} x  The tag's position that decided it: east, mm.
 * @property {number} y  North, mm.
 * @property {number} z  Height, mm.
 * @property {string} zone  The zone's name.
 */

/**
 * Entering or leaving (`zone`).
 * @typedef {"enter" | "exit"} ZoneHappening
 */

/**
 * A tag inside a zone, as `GET .../zones/{zone_name}/occupancy` lists it.
 * @typedef {object} ZoneOccupant
 * @property {SerialNumber} serial_number  The tag.
 * @property {number} since_ms  When it entered, in milliseconds since the Unix epoch.
 */

/**
 * A simple polygon (no edge crosses another), [x, y] points in mm, closed back to the first.
 * @typedef {[number, number][]} ZonePolygon
 */

export {};
