from tiller.cli import main

main()
