# man-examples.awk: print the commands of the EXAMPLES section of a page
# rendered by mandoc -T ascii (overstrike removed), for t0905-man-examples
# to run: each "$ " line and the lines indented under it, less the prompt
# and the indent, one command after another.
/^[A-Z][A-Z ]*$/ { on = ($0 == "EXAMPLES"); next }
!on { next }
/^ *\$ / {
	match($0, /^ *\$ /)
	indent = RLENGTH
	print substr($0, indent + 1)
	incmd = 1
	next
}
incmd && /^ +[^ ]/ {
	match($0, /^ */)
	if (RLENGTH >= indent) {
		print substr($0, indent + 1)
		next
	}
}
{ incmd = 0 }
