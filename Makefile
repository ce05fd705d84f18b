# unpinned: the two commands are `make lab` and `make test`; both set everything up first.
# PROFILE=quick (default: CI and live seminars) or PROFILE=full (the sources' sizes).
PYTHON ?= python3
PROFILE ?= $(or $(UNPINNED_PROFILE),quick)
# Handed to course.py through the environment, never spliced into a shell line: any value arrives intact
# (PROFILE='a b' too), and course.py answers with the one-line error that names the allowed values.
export UNPINNED_PROFILE := $(PROFILE)
# Python 2 and 3.6 cannot even parse course.py; this line lets them end with one sentence as well.
CHECK_PYTHON = $(PYTHON) -c 'import sys; sys.exit("[unpinned] error: Python 3.10 or newer is needed; this is %d.%d (%s). Install a newer one and run e.g. make setup PYTHON=python3.12" % (sys.version_info[0], sys.version_info[1], sys.executable) if sys.version_info < (3, 10) else 0)'
COURSE = @$(CHECK_PYTHON) && $(PYTHON) tools/course.py

.PHONY: lab test setup doctor book slides stop clean

lab:      ## set up, then open the course in JupyterLab
	$(COURSE) lab

test:     ## set up, then run the whole test suite (notebooks, snippets, helpers)
	$(COURSE) test

setup:    ## only set up (venv, JJava kernel, JBang, Maven artifacts); idempotent
	$(COURSE) setup

doctor:   ## print what was found (JDK, kernel, JBang, cores, profile) and what is missing
	$(COURSE) doctor

# FRESH, like PROFILE, goes through the environment and course.py decides: 1/yes/true run every chapter again,
# 0/no/false/empty do not, anything else is refused in one line (a non-empty FRESH=0 must not mean yes).
book slides: export UNPINNED_FRESH := $(FRESH)

book:     ## the executed notebooks (from make test; FRESH=1 runs them again) as a static site: build/book/index.html
	$(COURSE) book

slides:   ## the executed notebooks as reveal.js slides that work offline: build/slides/index.html
	$(COURSE) slides

stop:     ## end this checkout's experiment JVMs (e.g. left over from a killed kernel); other checkouts' stay
	$(COURSE) stop

clean:    ## remove everything set-up made in this checkout (keeps results/)
	rm -rf .venv .course
