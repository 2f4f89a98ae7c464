//go:build !unix

package mcphost

import "io/fs"

// openNoFollow is 0 where the system has no O_NOFOLLOW; the file is then
// checked by Lstat only.
const openNoFollow = 0

// ownedBySelf accepts every file where ownership is not a uid.
func ownedBySelf(fs.FileInfo) string { return "" }
