//go:build !unix

package convert

const oNonblock = 0
