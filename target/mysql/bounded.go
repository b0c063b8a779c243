package mysql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// The driver reads a whole packet before txlab sees a row of it, and joins
// the 16 MiB pieces of a larger one: a row of 60 columns of 15 MiB (each
// under the server's max_allowed_packet) took 1.95 GB before any bound on
// rows could count it. boundedConn reads the packet headers as they pass
// and fails the read of a packet larger than txlab keeps of a result; the
// driver then closes the connection, and the statement fails.

// maxPacket is the largest logical packet (a row, an error) accepted: a
// row larger than what txlab keeps of a result cannot be kept anyway; at
// least 1 MiB, so that catalogs and the final state are never refused
// under a tiny --max-result-bytes.
func maxPacket() int64 { return max(target.CurrentLimits().Bytes, 1<<20) }

// oversized holds the size of the last packet refused, until a statement's
// error takes it (classify): the driver reports only "invalid connection".
var oversized atomic.Int64

// errOversize fails the read of an oversized packet.
var errOversize = errors.New("packet larger than txlab keeps")

// bound makes cfg's connections read through boundedConn. A TLS or
// compressed connection is left alone: its bytes are not MySQL packets.
func bound(cfg *drv.Config) {
	if cfg.TLS != nil || cfg.TLSConfig != "" && cfg.TLSConfig != "false" || strings.Contains(cfg.FormatDSN(), "compress=true") {
		return
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{KeepAlive: -1}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetKeepAlive(true) // as the driver does for its own dial
		}
		return &boundedConn{Conn: c, max: maxPacket()}, nil
	}
}

// boundedConn follows the packet stream: each packet is a 3-byte length,
// a sequence byte and the payload; a packet of 0xffffff bytes continues in
// the next one.
type boundedConn struct {
	net.Conn
	max     int64
	hdr     [4]byte
	nhdr    int
	left    int64 // payload bytes of the current packet still to come
	logical int64 // bytes of the current logical packet so far
	cont    bool  // the last packet was a full piece: the logical packet goes on
}

func (c *boundedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if serr := c.scan(p[:n]); serr != nil {
		return 0, serr
	}
	return n, err
}

// scan reads the headers among b's bytes.
func (c *boundedConn) scan(b []byte) error {
	for len(b) > 0 {
		if c.left > 0 {
			skip := min(c.left, int64(len(b)))
			c.left -= skip
			b = b[skip:]
			continue
		}
		k := copy(c.hdr[c.nhdr:], b)
		c.nhdr += k
		b = b[k:]
		if c.nhdr < 4 {
			return nil
		}
		c.nhdr = 0
		l := int64(c.hdr[0]) | int64(c.hdr[1])<<8 | int64(c.hdr[2])<<16
		if !c.cont {
			c.logical = 0
		}
		c.logical += l
		c.cont = l == 0xffffff
		c.left = l
		if c.logical > c.max {
			oversized.Store(c.logical)
			return fmt.Errorf("%w: %d bytes", errOversize, c.logical)
		}
	}
	return nil
}

// oversizeError is the statement error after a refused packet, nil when
// none was refused since the last one.
func oversizeError() *target.Error {
	n := oversized.Swap(0)
	if n == 0 {
		return nil
	}
	return &target.Error{Class: target.ClassConnection, RolledBack: true, Oversize: true,
		Message: fmt.Sprintf("the server sent a row of more than %d bytes, more than txlab keeps of a result (%d bytes, --max-result-bytes): the connection was closed", n, maxPacket())}
}
