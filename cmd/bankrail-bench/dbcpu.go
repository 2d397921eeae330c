package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/app"
)

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ,
// 100 on Linux).
const clockTicks = 100

// databaseCPU is the CPU time used so far by each PostgreSQL backend
// connected to the benchmark's database under the benchmark's application
// name (freshSchema names it after the run's schema, so that other users of
// the database are not counted), by process id (nil on SQLite,
// whose work is in this process, or when the server's /proc is not this
// machine's: then the backends' files are absent).
func databaseCPU(ctx context.Context, a *app.App, postgres bool) map[int]time.Duration {
	if !postgres {
		return nil
	}
	_, read := a.Store().Pools()
	rows, err := read.QueryContext(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = current_setting('application_name')`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[int]time.Duration{}
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			return nil
		}
		if t, ok := processCPU(pid); ok {
			out[pid] = t
		}
	}
	return out
}

// cpuSince is the CPU time the backends of after used since before (all
// of it for a backend started meanwhile).
func cpuSince(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}

// processCPU reads a process's user and system CPU time from
// /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return statCPU(string(b))
}

// statCPU is the user and system CPU time of a /proc/<pid>/stat line
// (fields 14 and 15, counted after the command's closing parenthesis: the
// command may hold spaces and parentheses).
func statCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * time.Second / clockTicks, true
}
