package pgcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runner runs PostgreSQL's programs: as the postgres user when the test
// runs as root (initdb refuses root), else as the test's own user.
type runner struct {
	cred *syscall.Credential
}

func newRunner() (runner, error) {
	if os.Geteuid() != 0 {
		return runner{}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return runner{}, fmt.Errorf("running as root, the servers must run as the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return runner{cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// own gives path to the user the servers run as.
func (r runner) own(path string) error {
	if r.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(r.cred.Uid), int(r.cred.Gid)); err != nil {
		return fmt.Errorf("give %s to postgres: %w", path, err)
	}
	return nil
}

// write writes a file the servers' user owns.
func (r runner) write(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return r.own(path)
}

// cmd runs bin/name with args in dir and returns its output in the error.
func (r runner) cmd(dir, bin, name string, args ...string) error {
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "LANG=C", "LC_ALL=C", "HOME=" + dir}
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// postmasterPID reads the server's process id from its postmaster.pid.
func postmasterPID(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("read postmaster.pid: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, fmt.Errorf("postmaster.pid: %w", err)
	}
	return pid, nil
}

// children are the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := stat(child); ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// stat is a process's parent id and state letter from /proc/PID/stat.
func stat(pid int) (ppid int, state string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0, ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, ""
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0]
}

// gone reports whether pid has exited (a zombie counts as gone).
func gone(pid int) bool {
	_, state := stat(pid)
	return state == "" || state == "Z"
}

// killTree SIGKILLs the postmaster, then its children (collected first:
// once their parent is dead they belong to init), and waits until all are
// gone.
func killTree(pid int) error {
	kids := children(pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("SIGKILL postmaster %d: %w", pid, err)
	}
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGKILL) // it may have exited already
	}
	deadline := time.Now().Add(30 * time.Second) // basetime: waiting for real processes to die
	for _, p := range append([]int{pid}, kids...) {
		for !gone(p) {
			if time.Now().After(deadline) { // basetime: waiting for real processes to die
				return fmt.Errorf("process %d still alive 30 s after SIGKILL", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// Renice sets the CPU priority (nice, up to 19, the lowest) of node n's
// server and of every process it has forked; the backends it forks later
// inherit it. A benchmark uses it to stand in for a standby on a machine
// of its own: on a shared machine the standby's work then takes the
// processors only when the primary and the service leave them.
func (c *Cluster) Renice(n *Node, nice int) error {
	pid, err := postmasterPID(n.Dir)
	if err != nil {
		return err
	}
	for _, p := range append([]int{pid}, children(pid)...) {
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, p, nice); err != nil && !gone(p) {
			return fmt.Errorf("renice %s's process %d: %w", n.Name, p, err)
		}
	}
	return nil
}
