package devserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// A process a test starts must end with the test binary, however the
// binary ends: a failure, a panic, the -timeout of go test, a SIGKILL.
// Two mechanisms cover the two generations a test starts:
//
//   - The child itself gets Pdeathsig: the kernel kills it when the binary
//     dies. This needs nothing of the child, but it does not pass to what
//     the child forks: a launcher such as faketime forks the server and
//     waits for it, and a SIGKILL of the launcher leaves the server to init.
//   - So the child also leads a process group of its own, which what it
//     forks joins, and Kill signals the whole group. For the binary's
//     abrupt end, a guard process (one per binary, a shell reading a pipe
//     whose write end only the binary holds) learns each group as it is
//     started; when the pipe closes, because the binary is gone for
//     whatever reason, the guard kills every group still listed, then
//     exits. Kill tells the guard to forget a group it killed, so that a
//     process group id reused later by someone else is never signaled.

// DieWithParent makes the kernel kill cmd's process when the process that
// starts it dies, and makes the process lead a process group of its own,
// which Kill ends as a whole. Prefer [Start], which also makes the groups
// of what the process forks end with the binary.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// Start starts cmd so that it, and everything it forks, ends when the test
// binary ends, however it ends (see DieWithParent), and when [Kill] kills
// it. It fails if the guard that kills what survives the binary cannot be
// started. The guard learns of the process's group just after the process
// starts: a binary killed in between (microseconds, unless the machine is
// starved) leaves what the process forked meanwhile behind.
func Start(cmd *exec.Cmd) error {
	if err := startGuard(); err != nil {
		return err
	}
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := tellGuard("add", cmd.Process.Pid); err != nil {
		killGroup(cmd)
		_ = cmd.Wait()
		return err
	}
	return nil
}

// Kill sends SIGKILL to cmd's process, as a crash would, and to its process
// group if it leads one (see DieWithParent), and waits for the process to
// end. A command that never started, or whose process is already gone, is
// fine.
func Kill(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	killGroup(cmd)
	_ = cmd.Wait()
	if leadsGroup(cmd) {
		_ = tellGuard("del", cmd.Process.Pid)
	}
}

func leadsGroup(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid && cmd.SysProcAttr.Pgid == 0
}

// killGroup sends SIGKILL to cmd's process group if it leads one, else to
// its process. The group is signaled while its leader is not yet reaped,
// so its id cannot have been reused.
func killGroup(cmd *exec.Cmd) {
	if leadsGroup(cmd) && cmd.ProcessState == nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
}

// guardScript lists the groups it is told of ("add PGID", "del PGID", one
// a line) until its input closes, then kills the groups listed. It ignores
// the signals a terminal sends its foreground group, so that a Ctrl-C of
// go test leaves it to do its work.
const guardScript = `trap '' INT TERM HUP
groups=' '
while read -r op pg; do
	case $op in
	add) groups="$groups$pg " ;;
	del) case $groups in *" $pg "*) groups="${groups%%" $pg "*} ${groups#*" $pg "}" ;; esac ;;
	esac
done
for pg in $groups; do kill -s KILL -- "-$pg" 2>/dev/null; done
`

var guard struct {
	once sync.Once
	err  error
	mu   sync.Mutex
	w    *os.File // the pipe to the guard; never closed: the binary's end closes it
}

// startGuard starts the binary's guard once.
func startGuard() error {
	guard.once.Do(func() {
		r, w, err := os.Pipe()
		if err != nil {
			guard.err = fmt.Errorf("devserver: a pipe to the process guard: %w", err)
			return
		}
		defer r.Close()
		cmd := exec.Command("/bin/sh", "-c", guardScript)
		cmd.Stdin = r
		// Its own group, and no Pdeathsig: it must outlive the binary.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			w.Close()
			guard.err = fmt.Errorf("devserver: starting the process guard: %w", err)
			return
		}
		guard.w = w
	})
	return guard.err
}

// tellGuard sends the guard one line, if it was started.
func tellGuard(op string, pgid int) error {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.w == nil {
		return errors.New("devserver: the process guard is not running")
	}
	_, err := fmt.Fprintf(guard.w, "%s %d\n", op, pgid)
	if err != nil {
		return fmt.Errorf("devserver: telling the process guard of group %d: %w", pgid, err)
	}
	return nil
}
