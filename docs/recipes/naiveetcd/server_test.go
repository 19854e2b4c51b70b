package naiveetcd_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/devserver"
	"github.com/semacat/sem/lab/devserver/etcd"
)

// cli is a client of the single-member etcd that TestMain runs inside the
// test process, on loopback ports the kernel picks.
var cli *clientv3.Client

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withEtcd{m})
}

type withEtcd struct{ m *testing.M }

func (w withEtcd) Run() int {
	code := devserver.Main("naiveetcd", w.m.Run, func(dir string) (stop func(), err error) {
		_, cli, stop, err = etcd.Single(dir)
		return stop, err
	})
	// A stopped etcd server's connections can take a few seconds to end;
	// give them that long before goleak looks.
	devserver.Linger(8*time.Second, func() bool { return goleak.Find() == nil })
	return code
}
