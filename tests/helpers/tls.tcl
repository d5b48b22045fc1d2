# tls.tcl -- helpers of the TLS tests (tests/integration/tls*.tcl): test
# certificates from utils/gen-test-certs, servers (cairn or the reference
# redis-server) with a tls-port, tcl-tls client options, and the outcome of
# one TLS connection attempt.

package require tls

set ::tls_certs [file join $::cairn(tmp) certs]
if {![file exists [file join $::tls_certs cairn.dh]]} {
    exec sh [file join [file dirname [info script]] .. .. utils gen-test-certs] $::tls_certs
}

proc cert {name} { return [file join $::tls_certs $name] }

# The directives of a TLS server with the test certificates, on tls_port.
proc tls_config {tls_port args} {
    return [list tls-port $tls_port tls-cert-file [cert server.crt] tls-key-file [cert server.key] \
            tls-ca-cert-file [cert ca.crt] {*}$args]
}

# start_tls_server ?-binary PATH? ?directive value ...?: a server with a
# plain port (the harness waits on it) and a TLS port (the handle's
# tls_port key).
proc start_tls_server {args} {
    set binary $::cairn(server)
    if {[lindex $args 0] eq "-binary"} {
        set binary [lindex $args 1]
        set args [lrange $args 2 end]
    }
    set tp [::cairn_h::find_port]
    set srv [start_server -binary $binary -config [tls_config $tp {*}$args]]
    dict set srv tls_port $tp
    return $srv
}

# tcl-tls options presenting the certificate NAME (NAME.crt/.key, "" for
# none) and verifying the server against the test CA.
proc tls_opts {{name client}} {
    set o [list -cafile [cert ca.crt] -require 1]
    if {$name ne ""} { lappend o -certfile [cert $name.crt] -keyfile [cert $name.key] }
    return $o
}

# tls_try $srv NAME: "ok" if a TLS client presenting NAME gets PONG, else
# "refused". With TLS 1.3 a refused client certificate often shows only at
# the first read, so the attempt always goes as far as a command.
proc tls_try {srv name} {
    if {[catch {
        set c [client $srv -tls [tls_opts $name] -timeout 3000]
        set reply [r $c PING]
        close_client $c
    } err]} {
        if {[info exists c]} { close_client $c }
        return refused
    }
    return [expr {$reply eq "PONG" ? "ok" : "refused: $reply"}]
}

# A process' resident memory in kB (the allocations OpenSSL makes with
# malloc do not show in INFO's used_memory).
proc rss_kb {srv} {
    set f [open /proc/[dict get $srv pid]/status]
    set text [read $f]
    close $f
    regexp {VmRSS:\s+(\d+)} $text -> kb
    return $kb
}

# Whether the server runs under AddressSanitizer (SANITIZE=1): its freed
# memory sits in a quarantine, so RSS says nothing about leaks there;
# LeakSanitizer reports them at exit instead.
proc under_asan {srv} {
    set f [open /proc/[dict get $srv pid]/maps]
    set maps [read $f]
    close $f
    return [string match "*libasan*" $maps]
}
