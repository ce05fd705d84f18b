# unpinned: the two commands are `make lab` and `make test`; both set everything up first.
# PROFILE=quick (default: CI and live seminars) or PROFILE=full (the sources' sizes).
PYTHON ?= python3
PROFILE ?= $(or $(UNPINNED_PROFILE),quick)
COURSE = UNPINNED_PROFILE=$(PROFILE) $(PYTHON) tools/course.py

.PHONY: lab test setup doctor clean

lab:      ## set up, then open the course in JupyterLab
	$(COURSE) lab

test:     ## set up, then run the whole test suite (notebooks, snippets, helpers)
	$(COURSE) test

setup:    ## only set up (venv, JJava kernel, JBang, Maven artifacts); idempotent
	$(COURSE) setup

doctor:   ## print what was found (JDK, kernel, JBang, cores, profile) and what is missing
	@$(COURSE) doctor

clean:    ## remove everything set-up made in this checkout (keeps results/)
	rm -rf .venv .course
