// Package version holds gompi's release version.
package version

// Version is gompi's release version, shown by gompirun and gompi_info.
const Version = "0.1.0"
