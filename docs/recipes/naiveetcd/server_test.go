package naiveetcd_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/goleak"
	"go.uber.org/zap"
)

// cli is a client of the single-member etcd that TestMain runs inside the
// test process, on loopback ports the kernel picks.
var cli *clientv3.Client

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withEtcd{m})
}

type withEtcd struct{ m *testing.M }

func (w withEtcd) Run() int {
	code := w.run()
	// A stopped etcd server's connections can take a few seconds to end;
	// give them that long before goleak looks.
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline) && goleak.Find() != nil; {
		time.Sleep(100 * time.Millisecond)
	}
	return code
}

func (w withEtcd) run() int {
	dir, err := os.MkdirTemp("", "naiveetcd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(dir, "etcd")
	local, _ := url.Parse("http://127.0.0.1:0")
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*local}, []url.URL{*local}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*local}, []url.URL{*local}
	cfg.InitialCluster = cfg.Name + "=http://127.0.0.1:0"
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// Clients speak gRPC only. The HTTP gateway would build a logrus logger
	// that reads os.Stderr while the testing package sets it, a data race
	// -race reports in whichever test is running then.
	cfg.EnableGRPCGateway = false
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "naiveetcd: starting etcd:", err)
		return 1
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		fmt.Fprintln(os.Stderr, "naiveetcd: etcd was not ready within 30s")
		return 1
	}
	cli, err = clientv3.New(clientv3.Config{
		Endpoints:   []string{"http://" + e.Clients[0].Addr().String()},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cli.Close()
	return w.m.Run()
}
