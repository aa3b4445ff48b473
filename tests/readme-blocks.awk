# readme-blocks.awk: print the ```sh code blocks of README.md from its
# "## A tour" section on, in order, for t0950-readme.bats to run.  (The two
# set-up commands above the tour are run by .ci/run itself.)
/^## A tour/ { on = 1 }
on && /^```sh$/ { inblock = 1; next }
inblock && /^```$/ { inblock = 0; print ""; next }
inblock { print }
